/* tests/dilu/dilu_csr.h: a small host CSR built from triplets and a seeded generator, shared by the DILU
   kernel tests (reference and cuda). Define PGX_TEST_SEED before including it. */
#pragma once
#include <petscsys.h>
#include <vector>
#include <tuple>
#include <cmath>
#include <algorithm>

#if !defined(PGX_TEST_SEED)
  #define PGX_TEST_SEED 1
#endif

struct Csr {
  PetscInt                 n = 0;
  std::vector<PetscInt>    ptr, col;
  std::vector<PetscScalar> val;
  PetscScalar              at(PetscInt i, PetscInt j) const
  {
    auto b = col.begin() + ptr[i], e = col.begin() + ptr[i + 1];
    auto p = std::lower_bound(b, e, j);
    return (p != e && *p == j) ? val[p - col.begin()] : 0.0;
  }
  bool has(PetscInt i, PetscInt j) const
  {
    auto b = col.begin() + ptr[i], e = col.begin() + ptr[i + 1];
    return std::binary_search(b, e, j);
  }
};

/* from (i, j, v) triplets, duplicates summed */
static Csr FromTriplets(PetscInt n, std::vector<std::tuple<PetscInt, PetscInt, PetscScalar>> t)
{
  Csr A;
  std::sort(t.begin(), t.end(), [](auto &a, auto &b) { return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) < std::get<1>(b); });
  A.n = n;
  A.ptr.assign(n + 1, 0);
  for (size_t k = 0; k < t.size(); k++) {
    auto [i, j, v] = t[k];
    if (!A.col.empty() && k > 0 && std::get<0>(t[k - 1]) == i && std::get<1>(t[k - 1]) == j) {
      A.val.back() += v;
      continue;
    }
    A.col.push_back(j), A.val.push_back(v), A.ptr[i + 1]++;
  }
  for (PetscInt i = 0; i < n; i++) A.ptr[i + 1] += A.ptr[i];
  return A;
}

static unsigned long long seed = PGX_TEST_SEED;
static double             Rand() { return (double)((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 11) / 9007199254740992.0; }
