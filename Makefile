# SPDX-License-Identifier: GPL-2.0
# user_events for Linux 6.1: build, boot and test the patch series.
# The logic lives in harness/*.sh; these targets only call it.
#
#   make test     debug kernel + kselftests + KUnit + splat scan; summary line
#   make test-kcsan  KCSAN kernel + the racing kselftests; fails on a data
#                 race in the series' code, lists the others
#   make check    the 0-day matrix: W=1, clang, sparse, coccicheck,
#                 kernel-doc, Kconfig variants, randconfigs, the other
#                 architectures' guests (build/check/summary.txt)
#   make demo     release kernel, runs harness/guest/demo.sh
#   make shell    interactive shell in a guest on the release kernel
#   make series   git format-patch export + git am check + checkpatch
#                 + release-kernel build after each patch (make test
#                 runs all of it but the builds); patches/series says
#                 which file goes into which patch
#   make refresh-patches  turn edits made in build/linux back into
#                 patches/*.patch and the overlay (NEW=path: a new patch)
#   make docs     Sphinx build of Documentation/trace (build/docs/)
#   make bench    release kernel benchmarks (build/bench/: table, JSON, PNG)
#   make mutate   one debug kernel with every mutant of harness/mutants/
#                 (a rule broken on purpose), booted once per mutant:
#                 does a test fail for each? (not in make test or CI)
#   make kernel   build the debug and release kernels (alias: build)
#   make assemble assemble build/linux (pristine 6.1 + overlay + patches)
#   make userspace  headers, kselftests and sample (build/kselftest, build/samples)
#   make scanner-test  self-test of the splat scanner
#   make deps     install the Debian packages the harness needs
#   make clean    remove results and userspace builds (keeps the kernels)
#   make distclean  remove build/ entirely
#
# Variables: T=prog[,prog] (only these kselftests), UE_SKIP_KMEMLEAK=1,
# UE_ACCEL=kvm, UE_TIMEOUT=seconds, ARCH=x86_64,arm64,...|all (make test),
# UE_CHECK=step[,step] (make check); see README.md.

H := harness
ifdef T
export UE_T := $(T)
endif
# ARCH=arm64,s390x|all picks the architectures of make test (README.md);
# it must not reach the kernel's own make of the x86_64 builds
ifdef ARCH
export UE_ARCH := $(ARCH)
endif
unexport ARCH
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))

.PHONY: all test test-kcsan check demo shell series refresh-patches docs bench kernel build \
	assemble deps userspace scanner-test clean distclean help mutate

all: test

help:
	@sed -n '2,/^$$/s/^# \{0,1\}//p' Makefile

deps:
	@$(H)/deps.sh

assemble: deps
	@$(H)/assemble.sh

test:
	@$(H)/test.sh

test-kcsan:
	@$(H)/test-kcsan.sh

check:
	@$(H)/check.sh

demo:
	@$(H)/demo.sh

shell:
	@$(H)/shell.sh

series:
	@$(H)/series.sh

refresh-patches:
	@$(H)/refresh-patches.sh

docs:
	@$(H)/docs.sh

bench:
	@$(H)/bench.sh

mutate:
	@$(H)/mutate.sh

kernel build: assemble
	@$(H)/kernel.sh debug
	@$(H)/kernel.sh release

userspace: assemble
	@$(H)/kernel.sh debug
	@$(H)/userspace.sh debug

scanner-test:
	@$(H)/tests/scanner-test.sh

clean:
	rm -rf build/results-* build/stage build/stage.* build/tmp build/headers \
		build/kselftest build/kselftest-build build/samples build/samples32 \
		build/series build/series-checkpatch build/kconfig-debug build/kconfig-release \
		build/check build/arch-* build/kconfig-arm64* build/kconfig-s390x build/kconfig-i386

distclean:
	rm -rf build
