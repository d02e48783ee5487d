# kscen - declarative benchmark scenarios for the Linux kernel.
#
#   make          build ./kscen
#   make run      install what is missing, build, run scenarios/breakpoints.yaml
#   make test     build and run every test (unit, then end to end)
#   make golden   write tests/golden/*.out again from what kscen prints now
#   make mutate   the tests' mutation score (tests/mutate/; MUTATE_JOBS=2,
#                 MUTATE_ARGS='runner/stats/stats.c' for one file); on 2 CPUs 68 min,
#                 then about an hour for the survivors' pass under ASan
#   make test-vm  every kscen vm / kscen ab test (kernels under QEMU)
#   make test-docs the README's examples as written, at full length (minutes)
#   make asan     the same tests against an ASan/UBSan build
#   make fuzz     build the libFuzzer targets (clang), replay their regression
#                 inputs, then fuzz each for FUZZ_SECONDS (default 60); make
#                 test replays the inputs without libFuzzer (fuzz-replay-X)
#   make examples build the example workload module, examples/example.so
#   make install  PREFIX=/usr/local DESTDIR=: the binary, kscen(1) and
#                 kscen-scenario(5), bash completion, the example scenarios,
#                 the module header (PREFIX/include/kscen/workload.h)
#   make uninstall
#   V=1           show the commands
#
# Sources: runner/STAGE/*.c, one folder a stage of the pipe (docs/architecture.md:
# lib, workloads, stats, scenario, expand, store, sample, report, vm, cli;
# a file includes other folders' headers as "STAGE/x.h"), schemas/*.c,
# bpf/*.bpf.c (each -> $(BUILD)/bpf/X.bpf.o -> X.skel.h, struct X_bpf).

CC      ?= gcc
CFLAGS  ?= -O2 -g
BUILD   ?= build
KSCEN_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Irunner -I. -Ibpf -I$(BUILD)/bpf -I$(BUILD)
LDLIBS  := -lcyaml -lyaml -lbpf -lelf -lz -lpthread -lm -ldl
# What a workload module built outside the tree may call in kscen.
KSCEN_EXPORTS := runner/workloads/exports.list

# Debian packages the build and the tests need.
DEB_PKGS := libyaml-dev libcyaml-dev libbpf-dev bpftool clang libelf-dev zlib1g-dev
# the unit tests; the man pages (scdoc) and the tests of what install puts
DEB_PKGS += libcmocka-dev scdoc man-db bash-completion
# tests/layering.py (the layers of runner/) and the tests that parse outputs
DEB_PKGS += python3
# kscen plot (sweeps, comparisons, histories) runs gnuplot
DEB_PKGS += gnuplot-nox
# tests/slurm.sh runs deploy/slurm on a single-node Slurm.
DEB_PKGS += slurmctld slurmd slurm-client munge
# JSON for exec's json option and the fio adapter; the tools the adapters run.
DEB_PKGS += libjansson-dev fio stress-ng
LDLIBS  += -ljansson
# kscen vm / kscen ab and their tests: QEMU, the guest's init
DEB_PKGS += qemu-system-x86 busybox-static

# BPF programs: bpf/X.bpf.c -> $(BUILD)/bpf/X.bpf.o -> $(BUILD)/bpf/X.skel.h,
# whose skeleton is struct X_bpf (X_bpf__open() ...); a workload includes
# "X.skel.h". vmlinux.h comes from the running kernel's BTF, never from git.
CLANG   ?= clang
BPFTOOL ?= bpftool
BTF     ?= /sys/kernel/btf/vmlinux
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/i.86/x86/' \
		-e 's/aarch64.*/arm64/' -e 's/ppc64.*/powerpc/' -e 's/riscv64/riscv/' \
		-e 's/s390x/s390/' -e 's/loongarch64/loongarch/')
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.skel.h)
SRCS    := $(wildcard runner/*/*.c) $(wildcard schemas/*.c)
OBJS    := $(SRCS:%.c=$(BUILD)/%.o)
LIBOBJS := $(filter-out $(BUILD)/runner/cli/main.o,$(OBJS))
TSRCS   := $(wildcard tests/unit/*.c)
TOBJS   := $(TSRCS:%.c=$(BUILD)/%.o)

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2)
endif

.DELETE_ON_ERROR:
.PHONY: all run test unit e2e asan deps clean FORCE test-vm test-docs fuzz fuzz-build \
	install uninstall man examples golden mutate


all: kscen

# `git describe` of this tree, recorded in every run (runner/lib/version.c).
DESCRIBE := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
$(BUILD)/describe.h: FORCE
	$(Q)mkdir -p $(BUILD)
	$(Q)echo '#define KSCEN_DESCRIBE "$(DESCRIBE)"' > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/runner/lib/version.o: $(BUILD)/describe.h
FORCE:

kscen: $(BUILD)/kscen
	$(Q)ln -sf $(BUILD)/kscen kscen

# -z now: every symbol bound once, in the runner, before the fork server
# forks; lazily bound, each sample process looked them up again.
$(BUILD)/kscen: $(OBJS) $(KSCEN_EXPORTS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -Wl,-z,now -Wl,--dynamic-list=$(KSCEN_EXPORTS) -o $@ \
		$(OBJS) $(LDLIBS)

# sched.messaging's image: perf forks its workers from kscen-messaging
# (runner/workloads/helper/perf_image.c): messaging.c's engine in a program
# that links libc alone, as perf bench's workers are forks of perf and of
# nothing else. Built with HELPER_CFLAGS, never a sanitizer (it is the
# process image being measured), and embedded in kscen by
# perf_image_blob.c, which .incbin's it.
HELPER_CFLAGS ?= -O2 -g
HELPER_SRCS := runner/workloads/helper/perf_image.c runner/workloads/messaging.c \
	runner/workloads/abi.c runner/lib/spawn.c runner/lib/util.c runner/lib/diag.c
$(BUILD)/helper/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(KSCEN_CFLAGS) -MMD -MP $(HELPER_CFLAGS) -c -o $@ $<
$(BUILD)/kscen-messaging: $(HELPER_SRCS:%.c=$(BUILD)/helper/%.o)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(HELPER_CFLAGS) $(LDFLAGS) -o $@ $^
$(BUILD)/runner/workloads/perf_image_blob.o: $(BUILD)/kscen-messaging
$(BUILD)/runner/workloads/perf_image_blob.o: \
	KSCEN_CFLAGS += -DKSCEN_PERF_IMAGE='"$(BUILD)/kscen-messaging"'
-include $(wildcard $(BUILD)/helper/runner/*/*.d $(BUILD)/helper/runner/*/*/*.d)

# mem.find_bit's loops are built the way perf builds its own (perf's
# Makefile.config: -fstack-protector-all, frame pointers): a canary check
# in every call of the loop is part of what perf bench mem find_bit times.
$(BUILD)/runner/workloads/find_bit.o: \
	KSCEN_CFLAGS += -fstack-protector-all -fno-omit-frame-pointer

# Workload modules built outside the tree: examples/X.c -> examples/X.so,
# against the header as `make install` puts it (<kscen/workload.h>).
EXAMPLES := $(patsubst %.c,%.so,$(wildcard examples/*.c))
examples: $(EXAMPLES)

$(BUILD)/include/kscen/workload.h: runner/workloads/workload.h
	$(Q)mkdir -p $(dir $@)
	$(Q)cp $< $@

examples/%.so: examples/%.c $(BUILD)/include/kscen/workload.h
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared \
		-I$(BUILD)/include -o $@ $<

# -MMD -MP: each object's header dependencies, written by the compiler to
# X.d beside X.o, so that a header change rebuilds only its users.
$(BUILD)/%.o: %.c
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(KSCEN_CFLAGS) -MMD -MP $(CFLAGS) -c -o $@ $<
-include $(wildcard $(BUILD)/runner/*/*.d $(BUILD)/schemas/*.d $(BUILD)/tests/*/*.d)

# Simplest correct dependency: any workload may include any skeleton. The
# .bpf.o files are kept so that a rebuild does not redo every step.
$(filter $(BUILD)/runner/workloads/% $(BUILD)/runner/sample/profile%,$(OBJS)): $(BPF_SKELS)
.SECONDARY: $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.bpf.o)

$(BUILD)/bpf/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(BPFTOOL) btf dump file $(BTF) format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BUILD)/bpf/vmlinux.h $(wildcard bpf/*.h)
	$(call msg,CLANG,$<)
	$(Q)$(CLANG) -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
		-I$(BUILD)/bpf -Ibpf -c -o $@ $<

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# cmocka's test functions take a state they may not use. Bound as kscen is
# (-z now): the sample processes the tests fork fault in what kscen's do.
$(TOBJS): KSCEN_CFLAGS += -Wno-unused-parameter
$(BUILD)/unit-tests: $(TOBJS) $(LIBOBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -Wl,-z,now -o $@ $^ $(LDLIBS) -lcmocka

# Install what is missing: as root through apt-get, otherwise say how.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else \
			echo "missing packages; run as root:"; \
			echo "  apt-get install -y$$missing"; exit 1; \
		fi; \
	fi

run: deps
	$(Q)$(MAKE) --no-print-directory kscen
	./kscen run scenarios/breakpoints.yaml

# The unit tests (cmocka) and each area of tests/e2e/ print their counts;
# the last line adds them up: "N passed, N failed, N skipped".
test: deps
	$(Q)$(MAKE) --no-print-directory kscen $(BUILD)/unit-tests $(FUZZ_REPLAY) examples
	$(Q)tests/run-all.sh $(BUILD)/unit-tests ./kscen

# The golden reports (tests/golden/cases) as kscen prints them now: a change
# of output is then a diff to review in the commit that makes it.
golden:
	$(Q)$(MAKE) --no-print-directory kscen
	$(Q)tests/e2e/golden.sh ./kscen --update

# The tests' mutation score: each small change to the code that computes
# and prints numbers (tests/mutate/targets), alone, in a scratch copy of
# the tree, built and tested; killed / total and each survivor.
MUTATE_JOBS ?= 2
mutate:
	$(Q)$(MAKE) --no-print-directory kscen $(BUILD)/unit-tests
	$(Q)tests/mutate/mutate.py -j $(MUTATE_JOBS) $(MUTATE_ARGS)

# Every kscen vm / kscen ab test: two kernels booted under QEMU, with the
# faults (make test runs one boot); about two minutes under TCG.
test-vm: deps
	$(Q)$(MAKE) --no-print-directory kscen
	$(Q)tests/vm.sh ./kscen all

test-docs: deps
	$(Q)$(MAKE) --no-print-directory kscen
	$(Q)tests/e2e/readme.sh ./kscen all

asan:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		build-asan/kscen build-asan/unit-tests \
		$(FUZZ_TARGETS:%=build-asan/fuzz-replay-%) examples
	$(Q)ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run-all.sh build-asan/unit-tests build-asan/kscen

# libFuzzer targets in tests/fuzz/ (fuzz_X.c -> build-fuzz/fuzz_X), linked
# against every object of kscen but main.o, built with clang.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := scenario result value journal
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
	-fno-omit-frame-pointer -fno-sanitize-recover=undefined

$(BUILD)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIBOBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

.SECONDARY: $(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz/fuzz_%.o)

# The same targets replaying their inputs without libFuzzer, built by the
# normal compiler for make test (tests/e2e/fuzz.sh): tests/fuzz/replay.c.
FUZZ_REPLAY := $(FUZZ_TARGETS:%=$(BUILD)/fuzz-replay-%)
.SECONDARY: $(BUILD)/tests/fuzz/replay.o
$(BUILD)/fuzz-replay-%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $(LIBOBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

fuzz-build:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_CFLAGS)" \
		$(FUZZ_TARGETS:%=build-fuzz/fuzz_%)

fuzz: fuzz-build
	$(Q)tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---- install ---------------------------------------------------------------
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(PREFIX)/bin
MANDIR  := $(PREFIX)/share/man
DATADIR := $(PREFIX)/share/kscen
COMPDIR := $(PREFIX)/share/bash-completion/completions
INCDIR  := $(PREFIX)/include/kscen
MANS    := $(BUILD)/man/kscen.1 $(BUILD)/man/kscen-scenario.5

$(BUILD)/man/%: man/%.scd
	$(call msg,SCDOC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)scdoc < $< > $@.tmp && mv $@.tmp $@

man: $(MANS)

install: $(BUILD)/kscen $(MANS)
	install -Dm755 $(BUILD)/kscen $(DESTDIR)$(BINDIR)/kscen
	install -Dm644 $(BUILD)/man/kscen.1 $(DESTDIR)$(MANDIR)/man1/kscen.1
	install -Dm644 $(BUILD)/man/kscen-scenario.5 $(DESTDIR)$(MANDIR)/man5/kscen-scenario.5
	install -Dm644 completion/kscen.bash $(DESTDIR)$(COMPDIR)/kscen
	install -Dm644 runner/workloads/workload.h $(DESTDIR)$(INCDIR)/workload.h
	install -d $(DESTDIR)$(DATADIR)/scenarios
	install -m644 scenarios/*.yaml $(DESTDIR)$(DATADIR)/scenarios/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/kscen $(DESTDIR)$(MANDIR)/man1/kscen.1 \
		$(DESTDIR)$(MANDIR)/man5/kscen-scenario.5 $(DESTDIR)$(COMPDIR)/kscen
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(INCDIR)

clean:
	rm -rf build build-asan build-fuzz kscen $(EXAMPLES)
