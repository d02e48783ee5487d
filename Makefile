# kscen - declarative benchmark scenarios for the Linux kernel.
#
#   make          build ./kscen
#   make run      install what is missing, build, run scenarios/breakpoints.yaml
#   make test     build and run every test (unit, then end to end)
#   make asan     the same tests against an ASan/UBSan build
#   V=1           show the commands
#
# Sources: runner/*.c, runner/workloads/*.c (one file a workload), schemas/*.c.

CC      ?= gcc
CFLAGS  ?= -O2 -g
KSCEN_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Irunner -Ischemas
LDLIBS  := -lcyaml -lyaml -lpthread -lm

# Debian packages the build and the tests need.
DEB_PKGS := libyaml-dev libcyaml-dev

BUILD   ?= build
SRCS    := $(wildcard runner/*.c) $(wildcard runner/workloads/*.c) $(wildcard schemas/*.c)
OBJS    := $(SRCS:%.c=$(BUILD)/%.o)
LIBOBJS := $(filter-out $(BUILD)/runner/main.o,$(OBJS))
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
.PHONY: all run test unit e2e asan deps clean

all: kscen

kscen: $(BUILD)/kscen
	$(Q)ln -sf $(BUILD)/kscen kscen

$(BUILD)/kscen: $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c runner/kscen.h $(wildcard runner/*.h schemas/*.h tests/unit/*.h)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(KSCEN_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/unit-tests: $(TOBJS) $(LIBOBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

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

# Unit tests and end-to-end tests each print "N passed, N failed"; the last
# line adds them up.
test: deps
	$(Q)$(MAKE) --no-print-directory kscen $(BUILD)/unit-tests
	$(Q)tests/run-all.sh $(BUILD)/unit-tests ./kscen

asan:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		build-asan/kscen build-asan/unit-tests
	$(Q)ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run-all.sh build-asan/unit-tests build-asan/kscen

clean:
	rm -rf build build-asan kscen
