# SPDX-License-Identifier: GPL-2.0
# user_events for Linux 6.1: build, boot and test the patch series.
# The logic lives in harness/*.sh; these targets only call it.
# "make help" lists them: the text after "##" on each target's line, the
# same words as README.md's target list (harness/doccheck.py checks both).
# Variables (T=, ARCH=, UE_*): docs/developers.md.

H := harness
ifdef T
export UE_T := $(T)
endif
# ARCH=arm64,s390x|all picks the architectures of make test (docs/developers.md);
# it must not reach the kernel's own make of the x86_64 builds
ifdef ARCH
export UE_ARCH := $(ARCH)
endif
unexport ARCH
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))

.PHONY: all test test-kcsan check demo shell series refresh-patches docs bench kernel build \
	assemble deps userspace scanner-test clean distclean help mutate

.DEFAULT_GOAL := all

test: ## build the debug kernels (x86_64, arm64), boot them, run every test, judge
	@$(H)/test.sh

demo: ## boot the release kernel and watch a narrated user_events session
	@$(H)/demo.sh

shell: ## an interactive root shell in a guest on the release kernel
	@$(H)/shell.sh

series: ## export and check the series: git am, checkpatch, a build per patch
	@$(H)/series.sh

check: ## the 0-day build matrix, the other architectures, Debian's trees and configs
	@$(H)/check.sh

test-kcsan: ## a KCSAN kernel and the racing kselftests; fails on a data race in our code
	@$(H)/test-kcsan.sh

mutate: ## break each rule of harness/mutants/ in turn: does a test fail for each?
	@$(H)/mutate.sh

bench: ## release kernel benchmarks (build/bench/, the tables of docs/results.md)
	@$(H)/bench.sh

docs: ## Sphinx build of Documentation/trace (build/docs/)
	@$(H)/docs.sh

refresh-patches: ## turn edits made in build/linux back into patches/ and the overlay
	@$(H)/refresh-patches.sh

kernel: assemble ## build the debug and the release kernel
	@$(H)/kernel.sh debug
	@$(H)/kernel.sh release

build: kernel ## the same as make kernel

assemble: deps ## assemble build/linux: pristine 6.1 + overlay + patches
	@$(H)/assemble.sh

userspace: assemble ## headers, kselftests and sample (build/kselftest, build/samples)
	@$(H)/kernel.sh debug
	@$(H)/userspace.sh debug

scanner-test: ## self-test of the splat scanner
	@$(H)/tests/scanner-test.sh

deps: ## install the Debian packages the harness needs
	@$(H)/deps.sh

clean: ## remove results and userspace builds (keeps the trees and the kernels)
	rm -rf build/results-* build/stage build/stage.* build/tmp build/headers \
		build/kselftest build/kselftest-build build/samples build/samples32 \
		build/series build/series-checkpatch build/kconfig-debug build/kconfig-release \
		build/check build/arch-* build/kconfig-arm64* build/kconfig-s390x build/kconfig-i386

distclean: ## remove build/ entirely
	rm -rf build

help: ## this list
	@awk -F':[^#]*## ' '/^[a-z][-a-z]*:.*## / { printf "make %-16s %s\n", $$1, $$2 }' Makefile

all: test ## the same as make test (what plain make runs)
