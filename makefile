# PGX: GPU preconditioners, direct solvers and eigen-reduction for PETSc/SLEPc.
#
#   make deps          install the Debian packages the build and the tests need (only those missing)
#   make               build lib/libpgx.so, the tests, the tutorials and the benchmarks
#   make test          build, then run every test (one line each, last line 'N passed, N failed[, N skipped]')
#   make demo          build, then run the tutorials with each PGX type beside PETSc's stock choice
#   make gpuhost       build the copy sent to a GPU host (sm_90 only, stripped) and pack the PETSc runtime
#
# Variables: PETSC_DIR/PETSC_ARCH (default: Debian's PETSc), SLEPC_DIR (default: Debian's SLEPc),
#   CUDA=0|1 (default: 1 when nvcc is found), CUDA_DIR (/usr/local/cuda), CUDA_ARCH ("80 90": SASS for
#   each, plus PTX of the last), NVCC, OPT (-O2), V=1 (show commands).

.DEFAULT_GOAL := all
SHELL := /bin/bash
ROOT := $(abspath .)
BUILD := build
LIBDIR := lib
OBJDIR = $(BUILD)/obj
Q := $(if $(V),,@)

# ----------------------------------------------------------------------------------------------- PETSc
ifneq ($(PETSC_DIR),)
  PETSC_CONF := $(firstword $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/lib/petsc/conf/petscvariables $(PETSC_DIR)/lib/petsc/conf/petscvariables))
  PETSC_ROOT := $(if $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/include/petscconf.h),$(PETSC_DIR)/$(PETSC_ARCH),$(PETSC_DIR))
else
  PETSC_CONF := $(firstword $(wildcard /usr/lib/petsc/lib/petsc/conf/petscvariables /usr/lib/petscdir/petsc3.*/x86_64-linux-gnu-real/lib/petsc/conf/petscvariables))
  PETSC_ROOT := $(patsubst %/lib/petsc/conf/petscvariables,%,$(PETSC_CONF))
endif
petscvar = $(shell sed -n 's/^$(1) = //p' $(PETSC_CONF))

ifeq ($(PETSC_CONF),)
  HAVE_PETSC := 0
else
  HAVE_PETSC := 1
  CC  := $(call petscvar,CC)
  CXX := $(call petscvar,CXX)
  PETSC_INCLUDES := $(call petscvar,PETSC_CC_INCLUDES)
  PETSC_LIBS := -L$(PETSC_ROOT)/lib -Wl,-rpath,$(PETSC_ROOT)/lib $(call petscvar,PETSC_LIB_BASIC)
  PETSC_EXAMPLES ?= $(firstword $(wildcard $(PETSC_ROOT)/share/petsc/examples /usr/share/petsc/3.*/share/petsc/examples $(PETSC_DIR)/src/..))
  MPIEXEC_CMD := $(firstword $(call petscvar,MPIEXEC))
endif

# ----------------------------------------------------------------------------------------------- SLEPc
SLEPC_DIR ?= $(firstword $(wildcard /usr/lib/slepc /usr/lib/slepcdir/slepc3.*/x86_64-linux-gnu-real))
HAVE_SLEPC := $(if $(wildcard $(SLEPC_DIR)/include/slepceps.h),1,0)

# ----------------------------------------------------------------------------------------------- CUDA
CUDA_DIR ?= /usr/local/cuda
NVCC ?= $(firstword $(wildcard $(CUDA_DIR)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
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
CUDA_LIBS := -L$(CUDA_DIR)/lib64 -Wl,-rpath,$(CUDA_DIR)/lib64 -lcusolver -lcusparse -lcublas -lcudart_static -ldl -lrt -lpthread

# ----------------------------------------------------------------------------------------------- flags
OPT ?= -O2
MPI_CFLAGS := $(shell $(CXX) --showme:compile 2>/dev/null)
DEFS := -DPGX_HAVE_CUDA=$(CUDA) -DPGX_HAVE_SLEPC=$(HAVE_SLEPC)
INCLUDES := -I$(ROOT)/include $(PETSC_INCLUDES)
WARN := -Wall -Wextra -Wno-unused-parameter
CFLAGS_ALL := $(OPT) -g -fPIC $(WARN) $(DEFS) $(INCLUDES)
CXXFLAGS_ALL := -std=c++17 $(CFLAGS_ALL)
NVCCFLAGS_ALL := $(OPT) -g -std=c++17 -ccbin g++ $(CUDA_GENCODE) -Xcompiler -fPIC,-Wall,-Wextra,-Wno-unused-parameter \
  --expt-relaxed-constexpr -Werror=all-warnings $(DEFS) $(INCLUDES) $(MPI_CFLAGS) -I$(CUDA_DIR)/include
LIB_LDLIBS := $(PETSC_LIBS) -lmetis -lamd -lz $(if $(filter 1,$(CUDA)),$(CUDA_LIBS)) -lm
EXE_LDLIBS := -L$(ROOT)/$(LIBDIR) -Wl,-rpath,$(ROOT)/$(LIBDIR) -lpgx $(PETSC_LIBS) $(call petscvar,BLASLAPACK_LIB) -lm
EXE_CU_LDLIBS := $(EXE_LDLIBS) $(CUDA_LIBS)

# Rebuild everything when the flags change.
FLAGS_STAMP := $(BUILD)/.flags
ifeq ($(HAVE_PETSC),1)
  $(shell mkdir -p $(BUILD); echo '$(CXXFLAGS_ALL) $(NVCCFLAGS_ALL) $(LIB_LDLIBS)' | cmp -s - $(FLAGS_STAMP) || echo '$(CXXFLAGS_ALL) $(NVCCFLAGS_ALL) $(LIB_LDLIBS)' > $(FLAGS_STAMP))
endif

# ----------------------------------------------------------------------------------------------- sources
# Every .cxx under src/ outside cuda/ folders is host code (glue and reference kernels); every .cu is CUDA.
LIB_CXX := $(shell find src -name '*.cxx' -not -path '*/cuda/*' | sort)
LIB_CU  := $(if $(filter 1,$(CUDA)),$(shell find src -name '*.cu' | sort))
LIB_OBJ := $(patsubst %.cxx,$(OBJDIR)/%.o,$(LIB_CXX)) $(patsubst %.cu,$(OBJDIR)/%.cu.o,$(LIB_CU))
LIB_SO  := $(LIBDIR)/libpgx.so

# Programs: tests/, examples/, bench/. A .cu program is built only with CUDA.
PROG_SRC := $(shell find tests examples bench -name '*.c' -o -name '*.cxx' 2>/dev/null | sort) \
            $(if $(filter 1,$(CUDA)),$(shell find tests examples bench -name '*.cu' 2>/dev/null | sort))
PROG_BIN := $(addprefix $(BUILD)/,$(basename $(PROG_SRC)))

# Unmodified PETSc tutorials, built from Debian's examples package, loaded with -dll_append by tests.
PETSC_TUTORIALS := ksp/ksp/tutorials/ex1 ksp/ksp/tutorials/ex2 ksp/ksp/tutorials/ex23 ksp/ksp/tutorials/ex45 ksp/ksp/tutorials/ex10
PETSC_TUT_BIN := $(foreach t,$(PETSC_TUTORIALS),$(BUILD)/petsc-tutorials/$(subst /,_,$(subst /tutorials/,_,$(t))))

.PHONY: all lib programs tutorials-petsc test demo deps gpuhost clean config check-petsc check64 check-nocuda
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
tutorials-petsc: check-petsc $(if $(filter 1,$(HAVE_PETSC)),$(PETSC_TUT_BIN))

$(OBJDIR)/%.o: %.cxx $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS_ALL) -MMD -MP -c $< -o $@

$(OBJDIR)/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  NVCC  $<"
	$(Q)$(NVCC) $(NVCCFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIB_SO): $(LIB_OBJ)
	@mkdir -p $(@D)
	@echo "  LINK  $@"
	$(Q)$(CXX) -shared -o $@ $(LIB_OBJ) -Wl,-soname,libpgx.so $(LIB_LDLIBS)

$(BUILD)/%: %.c $(LIB_SO) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -o $@ $< $(EXE_LDLIBS)

$(BUILD)/%: %.cxx $(LIB_SO) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS_ALL) -MMD -MP -o $@ $< $(EXE_LDLIBS)

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

-include $(shell find $(BUILD) $(OBJDIR) -name '*.d' 2>/dev/null | sort -u)

# ----------------------------------------------------------------------------------------------- targets
test: all
	@PGX_MPIEXEC='$(MPIEXEC_CMD)' tests/run.sh

demo: deps all
	@examples/demo.sh

deps:
	@tools/deps.sh

# The copy for a GPU host: SASS for sm_90 only, stripped, in build-gpu/ and lib-gpu/ (objects in .gpuobj/, not
# carried), plus the packed Debian PETSc runtime (.gpuhost/) and the test matrices (.matrices/).
# tools/gpuhost-run.sh moves build-gpu/ and lib-gpu/ into place on the host.
GPU_VARS := BUILD=build-gpu LIBDIR=lib-gpu OBJDIR=.gpuobj CUDA=1 CUDA_ARCH=90 OPT=-O3
gpuhost:
	@$(MAKE) --no-print-directory $(GPU_VARS) lib
	@$(MAKE) --no-print-directory $(GPU_VARS) programs tutorials-petsc
	@find build-gpu -name '*.d' -delete; find build-gpu -name '*.cu.o' -delete; rm -rf build-gpu/testlogs
	@strip --strip-unneeded lib-gpu/libpgx.so $$(find build-gpu -type f -perm -u+x) 2>/dev/null || true
	@[ -f .gpuhost/petsc-runtime.tar.xz ] || ../shared/gpuhost/pack.sh
	@mkdir -p .matrices && cp -u $(or $(PGX_MATRICES),../shared/matrices)/*.mtx .matrices/
	@du -sh lib-gpu build-gpu .gpuhost .matrices | sed 's/^/  /'
	@echo "carry: lib-gpu build-gpu .gpuhost .matrices; on the host: tools/gpuhost-run.sh [tests] [bench]"

# The whole build and test suite again against Debian's 64-bit-index PETSc (libpetsc64-real3.18-dev).
PETSC64_DIR ?= $(firstword $(wildcard /usr/lib/petscdir/petsc64-3.*/x86_64-linux-gnu-real))
check64:
	@[ -n "$(PETSC64_DIR)" ] || { echo "PGX: no 64-bit-index PETSc found (Debian: apt-get install libpetsc64-real3.18-dev, or PGX_DEPS_64=1 make deps)" >&2; exit 1; }
	@$(MAKE) --no-print-directory PETSC_DIR=$(PETSC64_DIR) PETSC_ARCH= BUILD=build-64 LIBDIR=build-64/lib all
	@PGX_BUILD=build-64 PGX_LIB=build-64/lib tests/run.sh

# The whole build and test suite again without CUDA (host backends only), as a user without nvcc gets it.
check-nocuda:
	@$(MAKE) --no-print-directory CUDA=0 BUILD=build-nocuda LIBDIR=build-nocuda/lib all
	@PGX_BUILD=build-nocuda PGX_LIB=build-nocuda/lib tests/run.sh

config:
	@echo "PETSC: $(PETSC_ROOT) ($(PETSC_CONF))"; echo "SLEPC: $(SLEPC_DIR) (have=$(HAVE_SLEPC))"
	@echo "CUDA:  $(CUDA) ($(NVCC), arch $(CUDA_ARCH))"; echo "CXX:   $(CXX)"; echo "EXAMPLES: $(PETSC_EXAMPLES)"

clean:
	rm -rf $(BUILD) $(LIBDIR) build-gpu lib-gpu .gpuobj build-64 build-nocuda
