/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests.h - the list of unit tests in the table of main.c, run by cmocka in
 * this order; files with fixtures of their own export a group instead.
 */
#ifndef KSCEN_TESTS_H
#define KSCEN_TESTS_H

#define KSCEN_UNIT_TESTS(X)				\
	X(test_value_parse_is_strict)			\
	X(test_value_error_names_param_and_range)	\
	X(test_metric_regex_refuses_backrefs)	\
	X(test_every_workload_table_is_sane)		\
	X(test_module_check_passes_every_builtin)	\
	X(test_module_check_refuses_bad_tables)		\
	X(test_module_load_refuses_unsafe_files)	\
	X(test_expand_product_exclude_include)		\
	X(test_expand_fills_params_and_metrics)		\
	X(test_expand_ids_are_stable)			\
	X(test_expand_refuses_matrix_over_limit)	\
	X(test_expand_long_values_labels)		\
	X(test_expand_shares_parameter_texts)		\
	X(test_expand_metrics_list)		\
	X(test_sampler_request_round_trip)	\
	X(test_result_load_some_jobs)		\
	X(test_result_load_some_large)		\
	X(test_sampler_runs_and_reaps)		\
	X(test_sampler_sample_faults_few_pages)	\
	X(test_expand_include_duplicating_first_job_refused) \
	X(test_scenario_axis_streams_as_the_tree_reads)	\
	X(test_scenario_axis_strings_and_what_stays_in_the_tree) \
	X(test_scenario_axis_text_keeps_places)	\
	X(test_scenario_axis_lexed_before_pass_1)		\
	X(test_expand_keeps_every_job_walked)	\
	X(test_expand_refuses_at_the_entry)	\
	X(test_expand_refuses_many_twins)	\
	X(test_expand_refuses_module_metrics_past_the_limit) \
	X(test_expand_bounds_a_modules_message)	\
	X(test_expand_links_beyond_a_product)	\
	X(test_expand_some_is_expand_filtered)	\
	X(test_load_units_and_strings)			\
	X(test_sha256_known_answers)			\
	X(test_sha256_lengths)				\
	X(test_summary_median_mean_stddev)		\
	X(test_stats_median_ci_outliers_bimodal)	\
	X(test_stats_p_values_match_references)		\
	X(test_stats_change_ci_verdict_and_gate)	\
	X(test_stats_scenario_repeat_auto)		\
	X(test_stats_simulated_false_positive_and_detection_rates) \
	X(test_stats_large_samples_normal_approximation) \
	X(test_stats_change_edges_by_value)		\
	X(test_stats_summary_edges_by_value)		\
	X(test_stats_change_bounds_by_value)		\
	X(test_closest_suggests_only_near_names)	\
	X(test_result_roundtrip_is_bit_exact)		\
	X(test_result_save_never_overwrites)		\
	X(test_result_scenario_text_roundtrips)		\
	X(test_result_latest_matches_host_exactly)	\
	X(test_result_load_rejects_bad_files)		\
	X(test_result_load_recomputes_missing_summary)	\
	X(test_report_formats_deltas_and_escaping)	\
	X(test_report_delta_never_rounds_to_zero)	\
	X(test_expand_ids_escape_separators)		\
	X(test_history_drift_prediction_interval)	\
	X(test_history_drift_never_collapses)		\
	X(test_history_level_shift_is_no_drift)		\
	X(test_history_change_widened_by_drift)		\
	X(test_verdict_t_distribution_and_bh)		\
	X(test_verdict_changepoints_find_level_shifts)	\
	X(test_verdict_simulated_histories_with_outliers) \
	X(test_verdict_fdr_of_a_100_job_aa_run)		\
	X(test_verdict_calibration_record)		\
	X(test_verdict_spread_never_prints_zero)	\
	X(test_history_reference_per_job_never_silent)	\
	X(test_history_gate_stays_awake)		\
	X(test_history_pool_over_other_jobs)		\
	X(test_gate_q_exactly_at_the_gate_trips)	\
	X(test_history_reference_same_parameters_both_ways) \
	X(test_history_stored_reference_beside_the_run) \
	X(test_history_stored_reference_whose_directory_is_a_file) \
	X(test_history_stored_run_without_references) \
	X(test_history_stored_references_by_value) \
	X(test_history_pool_from_calibration)	\
	X(test_history_reference_why_each_job_has_none) \
	X(test_history_load_reads_the_newest_100)	\
	X(test_history_load_names_three_skips_counts_the_rest) \
	X(test_history_load_takes_a_run_of_this_second)	\
	X(test_env_diff_lists_tokens)			\
	X(test_progress_durations_and_estimate)	\
	X(test_synthesize_readers_agree)		\
	X(test_bpf_missing_btf_is_a_skip)		\
	X(test_uprobe_nop_counts_every_hit)		\
	X(test_sched_defaults_are_perf_benchs)		\
	X(test_lock_contention_metrics_follow_tracer)	\
	X(test_messaging_engine_runs_and_stops)		\
	X(test_perf_bench_more_defaults_are_perfs)	\
	X(test_futex_wait_queued_waits_for_the_late)	\
	X(test_futex_wake_waker_cpu_pins_the_waker)	\
	X(test_perf_bench_units_detected)		\
	X(test_bench_barrier_releases_all)		\
	X(test_json_path_names_one_value)	\
	X(test_profile_self_children_and_folding)	\
	X(test_profile_diff_orders_by_delta)		\
	X(test_profile_folded_names_are_safe)		\
	X(test_profile_result_roundtrip)		\
	X(test_symbols_kallsyms_and_elf)		\
	X(test_profile_spec_from_scenario)	\
	X(test_vm_bzimage_release_from_header)		\
	X(test_vm_initramfs_loads_dependencies_first)	\
	X(test_ab_jobs_pair_kernels)	\
	X(test_vm_script_passes_test_hooks)	\
	X(test_result_summary_comes_from_samples)	\
	X(test_result_caps_depth_keys_nodes)		\
	X(test_read_regular_refuses_fifo_and_devices)	\
	X(test_result_refuses_non_finite_samples)	\
	X(test_summary_of_huge_samples_is_finite)	\
	X(test_shard_assignment_is_deterministic_connected_balanced) \
	X(test_shard_balances_by_weight)	\
	X(test_fleet_geomean_per_host_and_configuration) \
	X(test_shard_walked_as_whole_plan_cut)		\
	X(test_shard_parse_and_job_array_env)		\
	X(test_merge_refuses_mixed_duplicate_and_lists_missing) \
	X(test_deploy_k8s_indexed_job_shape)		\
	X(test_report_numbers_scaled_and_rounded)	\
	X(test_format_num_style_at_the_edges)	\
	X(test_format_num_commas_signs_and_huge) \
	X(test_format_num_short_buffer)	\
	X(test_format_short_time)		\
	X(test_format_change_at_the_edges)	\
	X(test_format_ci_and_its_coverage)	\
	X(test_format_n_note_spread_finding_and_partial) \
	X(test_report_model_computes_each_delta_once) \
	X(test_report_model_baseline_and_previous_deltas_differ) \
	X(test_report_mail_delta_sign_follows_change) \
	X(test_report_model_no_delta_across_units) \
	X(test_report_model_noise_lines_and_pairing) \
	X(test_report_model_noise_causes_parsed_by_part) \
	X(test_report_model_delta_needs_a_baseline_number) \
	X(test_report_model_q_at_the_fdr_is_found) \
	X(test_report_model_noise_causes_fit_whole) \
	X(test_report_footer_counts_and_fdr_warning) \
	X(test_gate_says_why_nothing_was_compared)	\
	X(test_units_scaled_and_spelled_alike)		\
	X(test_units_edges)	\
	X(test_table_aligns_columns_and_headings)	\
	X(test_table_bounds_and_words)	\
	X(test_mail_run_table_says_n_and_confidence)	\
	X(test_mail_compare_old_new_change)		\
	X(test_compare_three_runs_side_by_side)		\
	X(test_mail_says_why_every_change_is_tilde)	\
	X(test_mail_compare_runs_that_differ)	\
	X(test_report_markdown_long_reason_whole)	\
	X(test_compare_66_runs_geomean)	\
	X(test_report_markdown_levels_of_every_job_and_delta)	\
	X(test_mail_compare_wider_than_72_columns)	\
	X(test_report_warns_when_no_comparison_can_pass_fdr)	\
	X(test_report_json_replaces_what_is_not_utf8)	\
	X(test_report_csv_columns_of_every_job)	\
	X(test_mail_cuts_a_word_longer_than_two_lines)	\
	X(test_mail_parameters_of_any_length_and_number)	\
	X(test_mail_table_of_exactly_72_columns)	\
	X(test_report_text_hint_and_footer_at_their_edges) \
	X(test_report_text_other_reference_named_with_its_date) \
	X(test_report_text_shows_each_job_profile)	\
	X(test_compare_text_diffs_each_job_profile)

#define DECLARE(fn) void fn(void **state);
KSCEN_UNIT_TESTS(DECLARE)
#undef DECLARE

char *kscen_sha256_hex(const void *buf, size_t len);
/* test_report_model.c: a run of two job entries (see there); @slow: a/x=1's factor. */
struct kscen_run;
struct kscen_run *kscen_test_sample_run(double slow);

/* Groups with their own setup and teardown. */
/* main.c: @fn on each good fixture and each example scenario. */
void tests_each_scenario(void (*fn)(const char *path));
/* test_result.c: load a result file, what the loader says into @err. */
struct kscen_run;
int tests_load_result(const char *path, struct kscen_run **out, char *err, size_t len);
int kscen_diag_tests(void);
int kscen_run_tests(void);
int kscen_spawn_tests(void);
int kscen_runmodel_tests(void);
int kscen_spawn_capture_tests(void);
int kscen_noise_tests(void);

#endif
