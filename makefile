# PGX: GPU preconditioners, direct solvers and eigen-reduction for PETSc/SLEPc.
#
#   make deps          install the Debian packages the build and the tests need (only those missing)
#   make               build lib/libpgx.so, the tests, the tutorials and the benchmarks
#   make test          build, then run every test (one line each, last line 'N passed, N failed[, N skipped]')
#   make demo          build, then run the tutorials with each PGX type beside PETSc's stock choice
#   make gpuhost       build the copy sent to a GPU host (sm_90 only, stripped) and pack the PETSc runtime
#   make install       PREFIX=/usr/local [DESTDIR=]: library (versioned soname), public headers, pgx.pc, tutorials
#   make uninstall     remove what install put there
#   make config        which PGX version, PETSc, SLEPc, CUDA and METIS were found, and why
#   make check64 | check-nocuda | check-complex | check-petsc325 | check-install    the suite in other configurations (CI runs all)
#
# Variables: PETSC_DIR/PETSC_ARCH (default: Debian's PETSc), SLEPC_DIR (default: Debian's SLEPc),
#   CUDA=0|1 (default: 1 when nvcc is found), CUDA_DIR (/usr/local/cuda), CUDA_ARCH ("80 90": SASS for
#   each, plus PTX of the last), NVCC, OPT (-O2), WERROR=1 (warnings are errors), V=1 (show commands),
#   PREFIX, DESTDIR.

.DEFAULT_GOAL := all
SHELL := /bin/bash
ROOT := $(abspath .)
BUILD := build
LIBDIR := lib
OBJDIR = $(BUILD)/obj
Q := $(if $(V),,@)

# ----------------------------------------------------------------------------------------------- version
pgxver = $(shell sed -n 's/^\#define PGX_VERSION_$(1) \([0-9]*\).*/\1/p' include/pgx/pgxversion.h)
PGX_VERSION := $(call pgxver,MAJOR).$(call pgxver,MINOR).$(call pgxver,PATCH)
PGX_SONAME  := libpgx.so.$(call pgxver,MAJOR).$(call pgxver,MINOR)

# ----------------------------------------------------------------------------------------------- PETSc
ifneq ($(PETSC_DIR),)
  PETSC_CONF := $(firstword $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/lib/petsc/conf/petscvariables $(PETSC_DIR)/lib/petsc/conf/petscvariables))
  PETSC_ROOT := $(if $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/include/petscconf.h),$(PETSC_DIR)/$(PETSC_ARCH),$(PETSC_DIR))
else
  PETSC_CONF := $(firstword $(wildcard /usr/lib/petsc/lib/petsc/conf/petscvariables /usr/lib/petscdir/petsc3.*/x86_64-linux-gnu-real/lib/petsc/conf/petscvariables))
  PETSC_ROOT := $(patsubst %/lib/petsc/conf/petscvariables,%,$(PETSC_CONF))
endif
comma := ,
petscvar = $(if $(PETSC_CONF),$(shell sed -n 's/^$(1) = //p' $(PETSC_CONF)))

ifeq ($(PETSC_CONF),)
  HAVE_PETSC := 0
else
  HAVE_PETSC := 1
  CC  := $(call petscvar,CC)
  CXX := $(call petscvar,CXX)
  PETSC_INCLUDES := $(call petscvar,PETSC_CC_INCLUDES)
  # -lpetsc alone, plus -rpath-link to the folders of PETSc's own dependencies (a source-built PETSc, such as
  # one with CUDA, links libraries from folders the linker does not search by itself)
  PETSC_LIBS := -L$(PETSC_ROOT)/lib -Wl,-rpath,$(PETSC_ROOT)/lib $(call petscvar,PETSC_LIB_BASIC) \
    $(patsubst -L%,-Wl$(comma)-rpath-link$(comma)%,$(filter -L%,$(call petscvar,PETSC_EXTERNAL_LIB_BASIC)))
  PETSC_EXAMPLES ?= $(firstword $(wildcard $(PETSC_ROOT)/share/petsc/examples /usr/share/petsc/3.*/share/petsc/examples $(PETSC_DIR)/src/..))
  MPIEXEC_CMD := $(firstword $(call petscvar,MPIEXEC))
endif

# PETSc 3.25 with CUDA, for make check-petsc325 and make gpuhost325 (../shared/petsc-3.25-cuda/setup.sh installs it)
PETSC325_DIR ?= /opt/petsc-3.25-cuda
PETSC325_SETUP ?= $(ROOT)/../shared/petsc-3.25-cuda/setup.sh

# ----------------------------------------------------------------------------------------------- SLEPc
# Default: the SLEPc matching the PETSc in use (Debian: petscdir/petsc[64-]3.18/ARCH -> slepcdir/slepc[64-]3.18/ARCH, and
# no other: /usr/lib/slepc may point to a SLEPc of another scalar type or index size, which would link but not work).
PETSC_REALROOT := $(realpath $(PETSC_ROOT))
SLEPC_DIR ?= $(if $(findstring /petscdir/,$(PETSC_REALROOT)),$(firstword $(wildcard $(subst /petscdir/petsc,/slepcdir/slepc,$(PETSC_REALROOT)))),$(firstword $(wildcard $(PETSC_REALROOT) /usr/lib/slepc /usr/lib/slepcdir/slepc3.*/x86_64-linux-gnu-real)))
HAVE_SLEPC := $(if $(wildcard $(SLEPC_DIR)/include/slepceps.h),1,0)
ifeq ($(HAVE_SLEPC),1)
  SLEPC_INCLUDES := -I$(SLEPC_DIR)/include
  SLEPC_LIBS := -L$(SLEPC_DIR)/lib -Wl,-rpath,$(SLEPC_DIR)/lib $(patsubst lib%.so,-l%,$(notdir $(firstword $(wildcard $(SLEPC_DIR)/lib/libslepc*.so))))
  SLEPC_EXAMPLES ?= $(firstword $(wildcard $(SLEPC_DIR)/share/slepc/examples /usr/share/slepc/3.*/share/slepc/examples))
endif

# ----------------------------------------------------------------------------------------------- CUDA
CUDA_DIR ?= /usr/local/cuda
NVCC ?= $(firstword $(wildcard $(CUDA_DIR)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
# With a complex PETSc only the CUDA code generic in PetscScalar is built: the device layer (src/sys/cuda/), the
# sparse LDL^T (src/mat/impls/ldlt/cuda/), the Hermitian reduction with its divide and conquer (src/mat/utils/sytrd/cuda/:
# EPS pgx), PCDILU (src/pc/impls/dilu/cuda/), PCAIPS with its tridiagonal solver (src/pc/impls/aips/cuda/,
# src/mat/utils/tridiag/cuda/) and the resident KSPs (src/ksp/utils/resident/cuda/), with the test programs of the
# first two (tests/ldlt/, bench/ldlt/; the complex cuda tests of the others are PETSc programs, tests/dilu/test_pc,
# tests/dilu/test_ksp, tests/ksp/test_ksp, tests/aips/test_aips and tests/tridiag/test_tridiag); the dense LU's cuda
# backend is written for real scalars (its glue tests PGX_HAVE_CUDA_REAL in pgximpl.h and factors on the host with
# complex scalars). The host backends are generic in PetscScalar.
PETSC_COMPLEX := $(if $(PETSC_CONF),$(shell grep -c '^\#define PETSC_USE_COMPLEX 1' $(PETSC_ROOT)/include/petscconf.h 2>/dev/null))
CUDA_COMPLEX_SRC  := src/sys/cuda/% src/mat/impls/ldlt/cuda/% src/mat/utils/sytrd/cuda/% src/pc/impls/dilu/cuda/% src/ksp/utils/resident/cuda/% src/pc/impls/aips/cuda/% src/mat/utils/tridiag/cuda/% src/mat/impls/denselu/cudaz/%
CUDA_COMPLEX_PROG := tests/ldlt/% bench/ldlt/% bench/sytrd/bench_hetrd%
cudaforscalar = $(if $(filter 1,$(PETSC_COMPLEX)),$(filter $(2),$(1)),$(1))
ifeq ($(CUDA),)
  CUDA := $(if $(NVCC),1,0)
  ifeq ($(CUDA),0)
    $(info PGX: nvcc not found (looked in $(CUDA_DIR)/bin and PATH): building the host backends only. Set CUDA_DIR or NVCC to build the CUDA backends.)
  endif
endif
ifeq ($(CUDA),1)
  ifeq ($(NVCC),)
    $(error PGX: CUDA=1 but nvcc was not found in $(CUDA_DIR)/bin or PATH; set CUDA_DIR=/path/to/cuda or build with CUDA=0)
  endif
endif
CUDA_ARCH ?= 80 90
CUDA_GENCODE := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) -gencode arch=compute_$(lastword $(CUDA_ARCH)),code=compute_$(lastword $(CUDA_ARCH))
# libpgx links the CUDA runtime only: it loads cuBLAS, cuSPARSE and cuSOLVER at their first use (src/sys/cuda/cudalibs.cu,
# by the sonames of this toolkit's libraries), so that a program that never needs them does not map them. The test and
# benchmark programs that call those libraries themselves link them (CUDA_LIBS).
CUDA_RT_LIBS := -L$(CUDA_DIR)/lib64 -Wl,-rpath,$(CUDA_DIR)/lib64 -lcudart_static -ldl -lrt -lpthread
CUDA_LIBS := -L$(CUDA_DIR)/lib64 -Wl,-rpath,$(CUDA_DIR)/lib64 -lcusolver -lcusparse -lcublas -lcudart_static -ldl -lrt -lpthread
cudasoname = $(or $(shell objdump -p $(CUDA_DIR)/lib64/lib$(1).so 2>/dev/null | awk '/SONAME/{print $$2}'),lib$(1).so)

# ----------------------------------------------------------------------------------------------- flags
OPT ?= -O2
MPI_CFLAGS := $(shell $(CXX) --showme:compile 2>/dev/null)
DEFS := -DPGX_HAVE_CUDA=$(CUDA) -DPGX_HAVE_SLEPC=$(HAVE_SLEPC)
INCLUDES := -I$(ROOT)/include $(SLEPC_INCLUDES) $(PETSC_INCLUDES)
WARN := -Wall -Wextra -Wno-unused-parameter $(if $(filter 1,$(WERROR)),-Werror)
CFLAGS_ALL := $(OPT) -g -fPIC $(WARN) $(DEFS) $(INCLUDES)
CXXFLAGS_ALL := -std=c++17 $(CFLAGS_ALL)
NVCCFLAGS_ALL := $(OPT) -g -std=c++17 -ccbin g++ $(CUDA_GENCODE) -Xcompiler -fPIC,-Wall,-Wextra,-Wno-unused-parameter \
  --expt-relaxed-constexpr -Werror=all-warnings $(DEFS) $(INCLUDES) $(MPI_CFLAGS) -I$(CUDA_DIR)/include
LIB_LDLIBS := $(SLEPC_LIBS) $(PETSC_LIBS) -lmetis -lamd -lz $(if $(filter 1,$(CUDA)),$(CUDA_RT_LIBS)) -lm
EXE_LDLIBS := -L$(ROOT)/$(LIBDIR) -Wl,-rpath,$(ROOT)/$(LIBDIR) -lpgx $(SLEPC_LIBS) $(PETSC_LIBS) $(call petscvar,BLASLAPACK_LIB) -lm
EXE_CU_LDLIBS := $(EXE_LDLIBS) $(CUDA_LIBS)

# Rebuild everything when the flags change.
FLAGS_STAMP := $(BUILD)/.flags
ifeq ($(HAVE_PETSC),1)
  $(shell mkdir -p $(BUILD); echo '$(CXXFLAGS_ALL) $(NVCCFLAGS_ALL) $(LIB_LDLIBS)' | cmp -s - $(FLAGS_STAMP) || echo '$(CXXFLAGS_ALL) $(NVCCFLAGS_ALL) $(LIB_LDLIBS)' > $(FLAGS_STAMP))
endif

# ----------------------------------------------------------------------------------------------- sources
# Every .cxx under src/ outside cuda/ folders is host code (glue and reference kernels); every .cu is CUDA.
# src/eps/ (the SLEPc glue) is built only with SLEPc; tests/eps/ likewise.
LIB_CXX := $(shell find src -name '*.cxx' -not -path '*/cuda/*' $(if $(filter 0,$(HAVE_SLEPC)),-not -path 'src/eps/*') | sort)
LIB_CU  := $(if $(filter 1,$(CUDA)),$(call cudaforscalar,$(shell find src -name '*.cu' $(if $(filter 0,$(HAVE_SLEPC)),-not -path 'src/eps/*') | sort),$(CUDA_COMPLEX_SRC)))
LIB_OBJ := $(patsubst %.cxx,$(OBJDIR)/%.o,$(LIB_CXX)) $(patsubst %.cu,$(OBJDIR)/%.cu.o,$(LIB_CU))
LIB_SO  := $(LIBDIR)/libpgx.so

# Programs: tests/, examples/, bench/. A .cu program is built only with CUDA (with a complex PETSc, those of CUDA_COMPLEX_PROG only).
# (bench/results/ holds the records of GPU runs, among them experiment sources that are not built)
PROG_SRC := $(shell find tests examples bench -path bench/results -prune -o \( -name '*.c' -o -name '*.cxx' \) -print 2>/dev/null | sort) \
            $(if $(filter 1,$(CUDA)),$(call cudaforscalar,$(shell find tests examples bench -path bench/results -prune -o -name '*.cu' -print 2>/dev/null | sort),$(CUDA_COMPLEX_PROG)))
PROG_SRC := $(if $(filter 0,$(HAVE_SLEPC)),$(filter-out tests/eps/%,$(PROG_SRC)),$(PROG_SRC))
PROG_BIN := $(addprefix $(BUILD)/,$(basename $(PROG_SRC)))

# Unmodified PETSc tutorials, built from Debian's examples package, loaded with -dll_append by tests.
PETSC_TUTORIALS := ksp/ksp/tutorials/ex1 ksp/ksp/tutorials/ex2 ksp/ksp/tutorials/ex23 ksp/ksp/tutorials/ex45 ksp/ksp/tutorials/ex10
PETSC_TUT_BIN := $(foreach t,$(PETSC_TUTORIALS),$(BUILD)/petsc-tutorials/$(subst /,_,$(subst /tutorials/,_,$(t))))
# Unmodified SLEPc tutorials (Debian's libslepc3.18-dev-examples), run with -dll_append ... -eps_type pgx by tests.
SLEPC_TUTORIALS := $(if $(filter 1,$(HAVE_SLEPC)),eps/tutorials/ex1 eps/tutorials/ex2 eps/tutorials/ex13)
SLEPC_TUT_BIN := $(foreach t,$(SLEPC_TUTORIALS),$(BUILD)/slepc-tutorials/$(subst /tutorials/,_,$(t)))

.PHONY: all lib programs tutorials-petsc test demo deps gpuhost clean config check-petsc check64 check-nocuda check-petsc325 install uninstall check-install gpuhost325 gpuhostc check-complex
all: lib programs tutorials-petsc

ifeq ($(HAVE_PETSC),1)
check-petsc: ;
else
check-petsc:
	@if [ -n "$(PETSC_DIR)" ]; then echo "PGX: PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) holds no lib/petsc/conf/petscvariables; check PETSC_DIR and PETSC_ARCH (or unset them to use Debian's PETSc after 'make deps')" >&2; exit 1; fi
	@if [ -f $(LIB_SO) ]; then echo "PGX: PETSc development files not found; using the prebuilt lib/ and build/"; \
	else echo "PGX: PETSc not found. Run 'make deps' (Debian 12: installs petsc-dev, slepc-dev, libmetis-dev) or set PETSC_DIR and PETSC_ARCH." >&2; exit 1; fi
endif

lib: check-petsc $(if $(filter 1,$(HAVE_PETSC)),$(LIB_SO))
programs: check-petsc $(if $(filter 1,$(HAVE_PETSC)),$(PROG_BIN))
tutorials-petsc: check-petsc $(if $(filter 1,$(HAVE_PETSC)),$(PETSC_TUT_BIN) $(SLEPC_TUT_BIN))

$(OBJDIR)/%.o: %.cxx $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS_ALL) -MMD -MP -c $< -o $@

$(OBJDIR)/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  NVCC  $<"
	$(Q)$(NVCC) $(NVCCFLAGS_ALL) -MMD -MP -c $< -o $@
$(OBJDIR)/src/sys/cuda/cudalibs.cu.o: private NVCCFLAGS_ALL += -DPGX_CUBLAS_SONAME='"$(call cudasoname,cublas)"' \
  -DPGX_CUSPARSE_SONAME='"$(call cudasoname,cusparse)"' -DPGX_CUSOLVER_SONAME='"$(call cudasoname,cusolver)"'

# lib/libpgx.so.MAJOR.MINOR.PATCH with soname libpgx.so.MAJOR.MINOR (0.x: each minor version may change the
# ABI), and the links libpgx.so.MAJOR.MINOR and libpgx.so (what -dll_append and -lpgx name)
$(LIB_SO): $(LIB_OBJ)
	@mkdir -p $(@D)
	@echo "  LINK  $@ ($(PGX_SONAME))"
	$(Q)$(CXX) -shared -o $(LIBDIR)/libpgx.so.$(PGX_VERSION) $(LIB_OBJ) -Wl,-soname,$(PGX_SONAME) $(LIB_LDLIBS)
	$(Q)ln -sf libpgx.so.$(PGX_VERSION) $(LIBDIR)/$(PGX_SONAME)
	$(Q)ln -sf $(PGX_SONAME) $@

$(BUILD)/%: %.c $(LIB_SO) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -o $@ $< $(EXE_LDLIBS)

$(BUILD)/%: %.cxx $(LIB_SO) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS_ALL) -MMD -MP -o $@ $< $(EXE_LDLIBS)

# bench_ldlt also calls SuiteSparse's UMFPACK itself (its 64-bit umfpack-dl anchor, umfpack_dl/zl) when the headers are there
UMFPACK_H := $(wildcard /usr/include/suitesparse/umfpack.h)
$(BUILD)/bench/ldlt/bench_ldlt: private CFLAGS_ALL += $(if $(UMFPACK_H),-DPGX_BENCH_UMFPACK=1 -I$(dir $(UMFPACK_H)))
$(BUILD)/bench/ldlt/bench_ldlt: private EXE_LDLIBS += $(if $(UMFPACK_H),-lumfpack -lamd -lsuitesparseconfig)

$(BUILD)/%: %.cu $(LIB_SO) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  NVCC  $<"
	$(Q)$(NVCC) $(NVCCFLAGS_ALL) -MMD -MP -MF $@.d -c $< -o $@.cu.o
	$(Q)$(CXX) -o $@ $@.cu.o $(EXE_CU_LDLIBS)

$(BUILD)/petsc-tutorials/%: $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@src=$(PETSC_EXAMPLES)/src/$$(echo $* | sed -E 's/^([a-z]+)_([a-z]+)_(ex[0-9]+)$$/\1\/\2\/tutorials\/\3/').c; \
	 if [ ! -f $$src ]; then echo "PGX: PETSc tutorial $$src not found (Debian: apt-get install libpetsc3.18-dev-examples; or set PETSC_EXAMPLES)" >&2; exit 1; fi; \
	 echo "  CC    $$src (unmodified PETSc tutorial)"; \
	 $(CC) $(OPT) -w $(PETSC_INCLUDES) -o $@ $$src $(PETSC_LIBS) -lm

$(BUILD)/slepc-tutorials/%: $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@src=$(SLEPC_EXAMPLES)/src/$$(echo $* | sed -E 's/^([a-z]+)_(ex[0-9]+)$$/\1\/tutorials\/\2/').c; \
	 if [ ! -f $$src ]; then echo "PGX: SLEPc tutorial $$src not found (Debian: apt-get install libslepc3.18-dev-examples; or set SLEPC_EXAMPLES)" >&2; exit 1; fi; \
	 echo "  CC    $$src (unmodified SLEPc tutorial)"; \
	 $(CC) $(OPT) -w $(SLEPC_INCLUDES) $(PETSC_INCLUDES) -o $@ $$src $(SLEPC_LIBS) $(PETSC_LIBS) -lm

-include $(shell find $(BUILD) $(OBJDIR) -name '*.d' 2>/dev/null | sort -u)

# ----------------------------------------------------------------------------------------------- targets
# On a fresh machine PETSc is not there yet when this makefile is read, so 'demo' (and 'test' when PETSc is
# missing) install the packages first and then build in a new make, which finds them.
# (A GPU host without PETSc development files runs the prebuilt lib/ and build/ as they are.)
ifeq ($(HAVE_PETSC)$(PETSC_DIR)$(wildcard $(LIB_SO)),0)
test:
	@echo "PGX: PETSc not found: installing the Debian packages first ('make deps')"
	@tools/deps.sh
	@$(MAKE) --no-print-directory test
else
test: all
	@PGX_MPIEXEC='$(MPIEXEC_CMD)' tests/run.sh
endif

demo:
	@tools/deps.sh
	@$(MAKE) --no-print-directory all
	@examples/demo.sh

deps:
	@tools/deps.sh

# The copy for a GPU host: SASS for sm_90 only, stripped, in build-gpu/ and lib-gpu/ (objects in .gpuobj/, not
# carried), plus the packed Debian PETSc runtime (.gpuhost/). The matrices the tests and benchmarks read travel in
# tests/data/; PGX_GPUHOST_MATRICES=1 also copies ../shared/matrices into .matrices/ (11 MB) for benchmarks on more.
# tools/gpuhost-run.sh moves build-gpu/ and lib-gpu/ into place on the host.
GPU_VARS := BUILD=build-gpu LIBDIR=lib-gpu OBJDIR=.gpuobj CUDA=1 CUDA_ARCH=90 OPT=-O3
gpuhost:
	@$(MAKE) --no-print-directory $(GPU_VARS) lib
	@$(MAKE) --no-print-directory $(GPU_VARS) programs tutorials-petsc
	@find build-gpu -name '*.d' -delete; find build-gpu -name '*.cu.o' -delete; rm -rf build-gpu/testlogs
	@strip --strip-unneeded lib-gpu/libpgx.so.$(PGX_VERSION) $$(find build-gpu -type f -perm -u+x) 2>/dev/null || true
	@[ -f .gpuhost/petsc-runtime.tar.xz ] || ../shared/gpuhost/pack.sh
	@if [ "$(PGX_GPUHOST_MATRICES)" = 1 ]; then mkdir -p .matrices && cp -u $(or $(PGX_MATRICES),../shared/matrices)/*.mtx .matrices/; fi
	@du -shc lib-gpu build-gpu .gpuhost $(wildcard .matrices) | sed 's/^/  /'
	@echo "carry: lib-gpu build-gpu .gpuhost$(if $(wildcard .matrices), .matrices); on the host: tools/gpuhost-run.sh [tests] [bench]"

# The same against PETSc 3.25 with CUDA (device Vecs, AIJCUSPARSE) for the GPU host: build-gpu325/, lib-gpu325/ and
# .gpuhost325/petsc325.tar.xz (libpetsc 3.25, unpacked there at the same path, /opt/petsc-3.25-cuda, so that the
# rpaths hold); the Debian runtime in .gpuhost/ supplies MPI, BLAS/LAPACK and METIS. Carry lib-gpu325
# build-gpu325 .gpuhost .gpuhost325; on the host: tools/gpuhost-run.sh tests325 [bench325].
GPU325_VARS := PETSC_DIR=$(PETSC325_DIR) PETSC_ARCH= BUILD=build-gpu325 LIBDIR=lib-gpu325 OBJDIR=.gpuobj325 CUDA=1 CUDA_ARCH=90 OPT=-O3
gpuhost325:
	@[ -f $(PETSC325_DIR)/lib/petsc/conf/petscvariables ] || bash $(PETSC325_SETUP)
	@$(MAKE) --no-print-directory $(GPU325_VARS) lib
	@$(MAKE) --no-print-directory $(GPU325_VARS) programs tutorials-petsc
	@find build-gpu325 -name '*.d' -delete; find build-gpu325 -name '*.cu.o' -delete; rm -rf build-gpu325/testlogs
	@strip --strip-unneeded lib-gpu325/libpgx.so.$(PGX_VERSION) $$(find build-gpu325 -type f -perm -u+x) 2>/dev/null || true
	@[ -f .gpuhost/petsc-runtime.tar.xz ] || ../shared/gpuhost/pack.sh
	@mkdir -p .gpuhost325; [ -f .gpuhost325/petsc325.tar.xz ] || tar -C / -cJf .gpuhost325/petsc325.tar.xz $(patsubst /%,%,$(PETSC325_DIR))/lib/libpetsc.so $(patsubst /%,%,$(PETSC325_DIR))/lib/libpetsc.so.3.25 $(patsubst /%,%,$(PETSC325_DIR))/lib/libpetsc.so.3.25.4
	@du -sh lib-gpu325 build-gpu325 .gpuhost .gpuhost325 | sed 's/^/  /'
	@echo "carry: lib-gpu325 build-gpu325 .gpuhost .gpuhost325; on the host: tools/gpuhost-run.sh tests325 [bench325]"

# The same against Debian's complex PETSc/SLEPc for the GPU host: build-gpuc/, lib-gpuc/ and
# .gpuhostc/complex-runtime.tar.xz (libpetsc_complex, libslepc_complex, libzmumps: tools/pack-complex.sh; they unpack
# beside the real runtime of .gpuhost/). Carry .gpuhost and .gpuhostc (with the builds tarred in it, see
# bench/results/README.md); on the host: tools/gpuhost-run.sh testsc.
GPUC_VARS = PETSC_DIR=$(PETSC_COMPLEX_DIR) PETSC_ARCH= BUILD=build-gpuc LIBDIR=lib-gpuc OBJDIR=.gpuobjc CUDA=1 CUDA_ARCH=90 OPT=-O3
gpuhostc:
	@[ -n "$(PETSC_COMPLEX_DIR)" ] || { echo "PGX: no complex PETSc found (PGX_DEPS_COMPLEX=1 make deps)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(GPUC_VARS) lib
	@$(MAKE) --no-print-directory $(GPUC_VARS) programs tutorials-petsc
	@find build-gpuc -name '*.d' -delete; find build-gpuc -name '*.cu.o' -delete; rm -rf build-gpuc/testlogs
	@strip --strip-unneeded lib-gpuc/libpgx.so.$(PGX_VERSION) $$(find build-gpuc -type f -perm -u+x) 2>/dev/null || true
	@[ -f .gpuhostc/complex-runtime.tar.xz ] || tools/pack-complex.sh
	@du -sh lib-gpuc build-gpuc .gpuhostc | sed 's/^/  /'
	@echo "carry: lib-gpuc build-gpuc .gpuhost .gpuhostc; on the host: tools/gpuhost-run.sh testsc"

# The check targets below build the CUDA code for CHECK_CUDA_ARCH only (default 90: SASS for sm_90 and its PTX),
# enough to compile every kernel in that configuration at about 60% of the default build's nvcc time; the default
# build (make, make test) and make gpuhost build their own architectures.
CHECK_CUDA_ARCH ?= 90

# The whole build and test suite again against Debian's 64-bit-index PETSc (libpetsc64-real3.18-dev).
PETSC64_DIR ?= $(firstword $(wildcard /usr/lib/petscdir/petsc64-3.*/x86_64-linux-gnu-real))
check64:
	@[ -n "$(PETSC64_DIR)" ] || { echo "PGX: no 64-bit-index PETSc found (Debian: apt-get install libpetsc64-real3.18-dev, or PGX_DEPS_64=1 make deps)" >&2; exit 1; }
	@$(MAKE) --no-print-directory PETSC_DIR=$(PETSC64_DIR) PETSC_ARCH= BUILD=build-64 LIBDIR=build-64/lib CUDA_ARCH='$(CHECK_CUDA_ARCH)' all
	@PGX_BUILD=build-64 PGX_LIB=build-64/lib tests/run.sh

# The whole build and test suite again against Debian's complex-scalar PETSc (libpetsc-complex3.18-dev;
# PGX_DEPS_COMPLEX=1 make deps installs it): host backends, generic in PetscScalar, and with nvcc the CUDA code
# that supports complex scalars (device layer, sparse LDL^T).
PETSC_COMPLEX_DIR ?= $(firstword $(wildcard /usr/lib/petscdir/petsc3.*/x86_64-linux-gnu-complex))
check-complex:
	@[ -n "$(PETSC_COMPLEX_DIR)" ] || { echo "PGX: no complex PETSc found (Debian: apt-get install libpetsc-complex3.18-dev, or PGX_DEPS_COMPLEX=1 make deps)" >&2; exit 1; }
	@$(MAKE) --no-print-directory PETSC_DIR=$(PETSC_COMPLEX_DIR) PETSC_ARCH= BUILD=build-complex LIBDIR=build-complex/lib CUDA_ARCH='$(CHECK_CUDA_ARCH)' all
	@PGX_BUILD=build-complex PGX_LIB=build-complex/lib tests/run.sh

# The whole build and test suite again without CUDA (host backends only), as a user without nvcc gets it.
check-nocuda:
	@$(MAKE) --no-print-directory CUDA=0 BUILD=build-nocuda LIBDIR=build-nocuda/lib all
	@PGX_BUILD=build-nocuda PGX_LIB=build-nocuda/lib tests/run.sh

# The whole build and test suite again against PETSc 3.25 built with CUDA (../shared/petsc-3.25-cuda, installed
# by its setup.sh at /opt/petsc-3.25-cuda), warnings as errors (no deprecated PETSc API). Runs without a GPU.
check-petsc325:
	@if [ ! -f $(PETSC325_DIR)/lib/petsc/conf/petscvariables ]; then \
	   if [ -f $(PETSC325_SETUP) ]; then bash $(PETSC325_SETUP); \
	   else echo "PGX: no PETSc 3.25 at $(PETSC325_DIR) and no $(PETSC325_SETUP) to install it; set PETSC325_DIR" >&2; exit 1; fi; fi
	@$(MAKE) --no-print-directory PETSC_DIR=$(PETSC325_DIR) PETSC_ARCH= BUILD=build-325 LIBDIR=build-325/lib CUDA_ARCH='$(CHECK_CUDA_ARCH)' WERROR=1 all
	@LD_LIBRARY_PATH=/opt/cudax/lib/stubs:$(PETSC325_DIR)/lib$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH} PGX_BUILD=build-325 PGX_LIB=build-325/lib tests/run.sh

config:
	@echo "PGX:    $(PGX_VERSION) ($(PGX_SONAME)), from include/pgx/pgxversion.h"
	@echo "PETSc:  $(if $(filter 1,$(HAVE_PETSC)),$$(sed -n 's/^#define PETSC_VERSION_\(MAJOR\|MINOR\|SUBMINOR\) *\([0-9]*\)/\2/p' $(firstword $(wildcard $(PETSC_ROOT)/include/petscversion.h $(PETSC_DIR)/include/petscversion.h)) | paste -sd.) at $(PETSC_ROOT),none found)"
	@echo "        why: $(if $(PETSC_DIR),PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH),PETSC_DIR unset: Debian's /usr/lib/petsc); $(if $(PETSC_CONF),$(PETSC_CONF),no petscvariables)"
	@c=$(PETSC_ROOT)/include/petscconf.h; [ -f "$$c" ] && echo "        with: $$(grep -q '^#define PETSC_HAVE_CUDA 1' $$c && echo CUDA || echo 'no CUDA'), $$(grep -q '^#define PETSC_USE_64BIT_INDICES 1' $$c && echo 64-bit || echo 32-bit) PetscInt, $$(grep -q '^#define PETSC_USE_COMPLEX 1' $$c && echo complex || echo real) scalars" || true
	@echo "SLEPc:  $(if $(filter 1,$(HAVE_SLEPC)),$(SLEPC_DIR),none) ($(if $(filter 1,$(HAVE_SLEPC)),found $(SLEPC_DIR)/include/slepceps.h,$(if $(SLEPC_DIR),no slepceps.h under SLEPC_DIR=$(SLEPC_DIR),no SLEPc matching this PETSc: Debian: apt-get install libslepc-real3.18-dev or make deps; else set SLEPC_DIR): EPS pgx not built))"
	@echo "        libs: $(SLEPC_LIBS); tutorials from $(SLEPC_EXAMPLES)"
	@echo "CUDA:   $(if $(filter 1,$(CUDA)),$(NVCC) ($$($(NVCC) --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')), arch $(CUDA_ARCH),off (CUDA=0 or no nvcc in $(CUDA_DIR)/bin or PATH): host backends only)"
	@echo "METIS:  $$(for d in /usr/include $(PETSC_ROOT)/include; do [ -f $$d/metis.h ] && { echo $$d/metis.h; break; }; done || echo 'metis.h not found') (linked with -lmetis)"
	@echo "CXX:    $(CXX)"
	@echo "EXAMPLES: $(PETSC_EXAMPLES)"
	@echo "install: PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)"

# ----------------------------------------------------------------------------------------------- install
# make install PREFIX=/usr/local [DESTDIR=...]: the library with its soname links, the public headers (not
# include/pgx/private/), lib/pkgconfig/pgx.pc naming the PETSc (and SLEPc) PGX was built against, and the
# tutorials' sources under share/pgx/. make uninstall removes exactly those files, and the folders install
# made once they are empty.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_DIR := $(DESTDIR)$(PREFIX)
PUBLIC_HEADERS := $(wildcard include/pgx.h include/slepcpgx.h) $(wildcard include/pgx/*.h)
TUTORIAL_SRC := $(wildcard examples/tutorials/*.c)
INSTALLED := lib/libpgx.so.$(PGX_VERSION) lib/$(PGX_SONAME) lib/libpgx.so lib/pkgconfig/pgx.pc \
  $(patsubst include/%,include/%,$(PUBLIC_HEADERS)) $(patsubst examples/tutorials/%,share/pgx/tutorials/%,$(TUTORIAL_SRC))
PC_CFLAGS := -I$${includedir} $(PETSC_INCLUDES) $(if $(filter 1,$(HAVE_SLEPC)),$(SLEPC_INCLUDES))
PC_LIBS := -L$${libdir} -Wl,-rpath,$${libdir} -lpgx $(if $(filter 1,$(HAVE_SLEPC)),$(SLEPC_LIBS)) $(PETSC_LIBS) -lm

install: lib
	@echo "  INSTALL $(INSTALL_DIR)"
	$(Q)install -d $(INSTALL_DIR)/lib/pkgconfig $(INSTALL_DIR)/include/pgx $(INSTALL_DIR)/share/pgx/tutorials
	$(Q)install -m 755 $(LIBDIR)/libpgx.so.$(PGX_VERSION) $(INSTALL_DIR)/lib/
	$(Q)ln -sf libpgx.so.$(PGX_VERSION) $(INSTALL_DIR)/lib/$(PGX_SONAME)
	$(Q)ln -sf $(PGX_SONAME) $(INSTALL_DIR)/lib/libpgx.so
	$(Q)for h in $(PUBLIC_HEADERS); do install -m 644 $$h $(INSTALL_DIR)/$$h; done
	$(Q)install -m 644 $(TUTORIAL_SRC) $(INSTALL_DIR)/share/pgx/tutorials/
	$(Q){ echo 'prefix=$(PREFIX)'; echo 'libdir=$${prefix}/lib'; echo 'includedir=$${prefix}/include'; \
	  echo 'petsc_dir=$(PETSC_ROOT)'; echo 'slepc_dir=$(if $(filter 1,$(HAVE_SLEPC)),$(SLEPC_DIR))'; echo; \
	  echo 'Name: PGX'; echo 'Description: GPU preconditioners, direct solvers and eigensolvers for PETSc and SLEPc'; \
	  echo 'Version: $(PGX_VERSION)'; \
	  echo 'Cflags: $(PC_CFLAGS)'; echo 'Libs: $(PC_LIBS)'; } > $(INSTALL_DIR)/lib/pkgconfig/pgx.pc
	@echo "  PGX $(PGX_VERSION) installed in $(INSTALL_DIR): load it with -dll_append $(PREFIX)/lib/libpgx.so"

check-install: all
	@tests/install.sh

uninstall:
	@echo "  UNINSTALL $(INSTALL_DIR)"
	$(Q)for f in $(INSTALLED); do rm -f $(INSTALL_DIR)/$$f; done
	$(Q)for d in share/pgx/tutorials share/pgx include/pgx lib/pkgconfig share include lib; do rmdir $(INSTALL_DIR)/$$d 2>/dev/null || true; done

clean:
	rm -rf $(BUILD) $(LIBDIR) build-gpu lib-gpu .gpuobj build-64 build-nocuda build-325 build-gpu325 lib-gpu325 .gpuobj325 build-complex
