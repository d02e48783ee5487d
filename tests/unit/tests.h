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
	X(test_expand_stream_same_ids_in_order)	\
	X(test_expand_stream_refuses_what_expand_does) \
	X(test_expand_some_is_expand_filtered)	\
	X(test_load_units_and_strings)			\
	X(test_sha256_known_answers)			\
	X(test_summary_median_mean_stddev)		\
	X(test_stats_median_ci_outliers_bimodal)	\
	X(test_stats_p_values_match_references)		\
	X(test_stats_change_ci_verdict_and_gate)	\
	X(test_stats_scenario_repeat_auto)		\
	X(test_stats_simulated_false_positive_and_detection_rates) \
	X(test_closest_suggests_only_near_names)	\
	X(test_result_roundtrip_is_bit_exact)		\
	X(test_result_save_never_overwrites)		\
	X(test_result_latest_matches_host_exactly)	\
	X(test_result_load_rejects_bad_files)		\
	X(test_result_load_recomputes_missing_summary)	\
	X(test_report_formats_deltas_and_escaping)	\
	X(test_expand_ids_escape_separators)		\
	X(test_history_drift_random_effects)		\
	X(test_history_change_widened_by_drift)		\
	X(test_history_reference_per_job_never_silent)	\
	X(test_env_diff_lists_tokens)			\
	X(test_progress_durations_and_estimate)	\
	X(test_synthesize_readers_agree)		\
	X(test_bpf_missing_btf_is_a_skip)		\
	X(test_uprobe_nop_counts_every_hit)		\
	X(test_sched_defaults_are_perf_benchs)		\
	X(test_lock_contention_metrics_follow_tracer)	\
	X(test_messaging_engine_runs_and_stops)		\
	X(test_perf_bench_more_defaults_are_perfs)	\
	X(test_perf_bench_units_detected)		\
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
	X(test_result_summary_comes_from_samples)	\
	X(test_result_caps_depth_keys_nodes)		\
	X(test_read_regular_refuses_fifo_and_devices)	\
	X(test_result_refuses_non_finite_samples)	\
	X(test_summary_of_huge_samples_is_finite)	\
	X(test_shard_assignment_is_deterministic_connected_balanced) \
	X(test_shard_balances_by_weight)	\
	X(test_fleet_geomean_per_host_and_configuration) \
	X(test_shard_subset_renumbers_links)		\
	X(test_shard_parse_and_job_array_env)		\
	X(test_merge_refuses_mixed_duplicate_and_lists_missing) \
	X(test_deploy_k8s_indexed_job_shape)		\
	X(test_report_numbers_scaled_and_rounded)	\
	X(test_report_model_computes_each_delta_once)

#define DECLARE(fn) void fn(void **state);
KSCEN_UNIT_TESTS(DECLARE)
#undef DECLARE

char *kscen_sha256_hex(const void *buf, size_t len);

/* Groups with their own setup and teardown. */
int kscen_diag_tests(void);
int kscen_run_tests(void);
int kscen_spawn_tests(void);
int kscen_runmodel_tests(void);
int kscen_spawn_capture_tests(void);

#endif
