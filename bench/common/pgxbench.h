/* bench/common/pgxbench.h: timing shared by the benchmarks (included by bench .cu programs). */
#pragma once
#include <pgx/private/pgxcuda.h>
#include <petsctime.h>
#include <algorithm>
#include <functional>
#include <vector>

/* Median time in ms of run() over reps calls, timed with cudaEvents on PGX's stream after two untimed warm-up
   calls; prep() (may be empty) runs before every call, untimed. */
static inline PetscErrorCode PGXBenchMedianPrep(PetscInt reps, const std::function<PetscErrorCode()> &prep, const std::function<PetscErrorCode()> &run, double *ms)
{
  cudaStream_t       s;
  cudaEvent_t        e0, e1;
  std::vector<float> t;

  PetscFunctionBegin;
  PetscCheck(reps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "reps %" PetscInt_FMT " must be >= 1", reps);
  PetscCall(PGXCUDAGetStream(&s));
  PGXCallCUDA(cudaEventCreate(&e0));
  PGXCallCUDA(cudaEventCreate(&e1));
  for (PetscInt i = 0; i < reps + 2; i++) {
    float x;
    if (prep) PetscCall(prep());
    PGXCallCUDA(cudaEventRecord(e0, s));
    PetscCall(run());
    PGXCallCUDA(cudaEventRecord(e1, s));
    PGXCallCUDA(cudaEventSynchronize(e1));
    PGXCallCUDA(cudaEventElapsedTime(&x, e0, e1));
    if (i >= 2) t.push_back(x);
  }
  PGXCallCUDA(cudaEventDestroy(e0));
  PGXCallCUDA(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  *ms = t[t.size() / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode PGXBenchMedian(PetscInt reps, const std::function<PetscErrorCode()> &run, double *ms)
{
  return PGXBenchMedianPrep(reps, nullptr, run, ms);
}

/* Median wall-clock ms of run() over reps calls after two untimed warm-ups; prep() (may be empty) untimed before each.
   The device is synchronized before and after each call: for work with a host part (checks, copies through
   PETSc) that a device event would time only in part. */
static inline PetscErrorCode PGXBenchWallMedianPrep(PetscInt reps, const std::function<PetscErrorCode()> &prep, const std::function<PetscErrorCode()> &run, double *ms)
{
  std::vector<double> t;
  PetscLogDouble      t0, t1;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < reps + 2; i++) {
    if (prep) PetscCall(prep());
    PGXCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    PetscCall(run());
    PGXCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t1));
    if (i >= 2) t.push_back((t1 - t0) * 1e3);
  }
  std::sort(t.begin(), t.end());
  *ms = t[t.size() / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}
