// bench/sptrsv: strategies for a triangular solve in natural order (the natural schedule of PC dilu), measured
// against cuSPARSE SpSV. Lower triangle of a 7-point (m^3) or 27-point stencil, (L + D) x = b, rows in level
// sets: one kernel per level (direct, CUDA graph), chunked sync-free (per-level done counters), per-row-flag
// sync-free; each with the rows in A's order and permuted into level order. Every answer is checked against a
// host solve. Standalone (no PETSc objects).
// Usage: bench_sptrsv [m=128] [27-point: 0|1]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cusparse.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", cudaGetErrorString(e_), __LINE__, #x); exit(1);} } while (0)
#define CS(x) do { cusparseStatus_t e = (x); if (e != CUSPARSE_STATUS_SUCCESS) { printf("cuSPARSE %d at %d\n", (int)e, __LINE__); exit(1);} } while (0)

struct CSR { int n; std::vector<int> ptr, col; std::vector<double> val; };

static CSR stencil(int m, bool s27) { // full matrix
  CSR A; A.n = m*m*m; A.ptr.push_back(0);
  for (int k=0;k<m;k++) for (int j=0;j<m;j++) for (int i=0;i<m;i++) {
    for (int dk=-1;dk<=1;dk++) for (int dj=-1;dj<=1;dj++) for (int di=-1;di<=1;di++) {
      int nz = (di!=0)+(dj!=0)+(dk!=0); if (!s27 && nz>1) continue;
      int ii=i+di,jj=j+dj,kk=k+dk; if (ii<0||jj<0||kk<0||ii>=m||jj>=m||kk>=m) continue;
      A.col.push_back(ii+m*(jj+m*kk)); A.val.push_back(nz==0 ? (s27?26.0:6.0) : -1.0);
    }
    A.ptr.push_back(A.col.size());
  }
  return A;
}

// strictly lower part in level order: for position p (row i = order[p]), entries lptr[p]..lptr[p+1]
struct Sched { int n, nlev; std::vector<int> order, lptr, lcol, levptr; std::vector<double> lval, diag; };

static Sched schedule(const CSR &A) {
  Sched S; S.n = A.n; std::vector<int> lev(A.n, 0); int maxl = 0;
  for (int i=0;i<A.n;i++) { int l=0; for (int q=A.ptr[i];q<A.ptr[i+1];q++) if (A.col[q]<i) l = std::max(l, lev[A.col[q]]+1); lev[i]=l; maxl=std::max(maxl,l);} 
  S.nlev = maxl+1; S.levptr.assign(S.nlev+1,0);
  for (int i=0;i<A.n;i++) S.levptr[lev[i]+1]++;
  for (int l=0;l<S.nlev;l++) S.levptr[l+1]+=S.levptr[l];
  std::vector<int> pos(S.levptr.begin(), S.levptr.end()-1); S.order.resize(A.n);
  for (int i=0;i<A.n;i++) S.order[pos[lev[i]]++] = i;
  S.lptr.push_back(0); S.diag.resize(A.n);
  for (int p=0;p<A.n;p++) { int i=S.order[p]; for (int q=A.ptr[i];q<A.ptr[i+1];q++) { if (A.col[q]<i) { S.lcol.push_back(A.col[q]); S.lval.push_back(A.val[q]); } else if (A.col[q]==i) S.diag[i]=A.val[q]; } S.lptr.push_back(S.lcol.size()); }
  return S;
}

struct Dev { int *order, *lptr, *lcol, *levptr; double *lval, *diag, *b, *x; };

__global__ void klevel(Dev d, int lo, int hi) {
  int p = lo + blockIdx.x*blockDim.x + threadIdx.x; if (p>=hi) return;
  int i = d.order[p]; double s = d.b[i];
  for (int q=d.lptr[p]; q<d.lptr[p+1]; q++) s -= d.lval[q]*d.x[d.lcol[q]];
  d.x[i] = s/d.diag[i];
}

// chunk-level sync-free: chunk c covers rows [cbeg[c], cend) within a single level clev[c]
__global__ void kchunk(Dev d, const int *cbeg, const int *clev, int nchunk, const int *levnchunk, unsigned *done, unsigned *ticket) {
  __shared__ int c;
  if (threadIdx.x==0) { c = atomicAdd(ticket, 1u); }
  __syncthreads();
  if (c >= nchunk) return;
  int lev = clev[c];
  if (threadIdx.x==0 && lev>0) {
    unsigned need = levnchunk[lev-1];
    volatile unsigned *dn = done + lev - 1;
    while (*dn < need) __nanosleep(32);
  }
  __syncthreads();
  int p = cbeg[c] + threadIdx.x;
  if (p < cbeg[c+1]) {
    int i = d.order[p]; double s = d.b[i];
    for (int q=d.lptr[p]; q<d.lptr[p+1]; q++) s -= d.lval[q]*__ldcg(&d.x[d.lcol[q]]);
    __stcg(&d.x[i], s/d.diag[i]);
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x==0) atomicAdd(done+lev, 1u);
}

// row-level sync-free with flags, rows in level order, blocks by ticket
__global__ void kflags(Dev d, int n, unsigned *flags, unsigned epoch, unsigned *ticket) {
  __shared__ unsigned blk;
  if (threadIdx.x==0) blk = atomicAdd(ticket, 1u);
  __syncthreads();
  int p = blk*blockDim.x + threadIdx.x; if (p>=n) return;
  int i = d.order[p]; double s = d.b[i];
  for (int q=d.lptr[p]; q<d.lptr[p+1]; q++) {
    int j = d.lcol[q];
    volatile unsigned *f = flags + j;
    while (*f != epoch) __nanosleep(20);
    s -= d.lval[q]*__ldcg(&d.x[j]);
  }
  __stcg(&d.x[i], s/d.diag[i]);
  __threadfence();
  atomicExch(flags+i, epoch);
}

template <class F>
static float timeit(cudaStream_t st, int reps, F f) {
  cudaEvent_t a,b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(); CK(cudaStreamSynchronize(st));
  std::vector<float> t;
  for (int r=0;r<reps;r++){ CK(cudaEventRecord(a,st)); f(); CK(cudaEventRecord(b,st)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms,a,b)); t.push_back(ms);} 
  std::sort(t.begin(),t.end()); return t[reps/2];
}

int main(int argc, char **argv) {
  int m = argc>1 ? atoi(argv[1]) : 128; bool s27 = argc>2 && atoi(argv[2]);
  CSR A = stencil(m, s27); Sched S = schedule(A); int n = A.n;
  printf("%s m=%d n=%d nnz=%zu levels=%d\n", s27?"27-pt":"7-pt", m, n, A.col.size(), S.nlev);
  std::vector<double> b(n); for (int i=0;i<n;i++) b[i] = 1.0 + (i%7)*0.1;
  // host reference
  std::vector<double> xr(n);
  for (int i=0;i<n;i++){ double s=b[i], dg=0; for(int q=A.ptr[i];q<A.ptr[i+1];q++){ if(A.col[q]<i) s-=A.val[q]*xr[A.col[q]]; else if(A.col[q]==i) dg=A.val[q]; } xr[i]=s/dg; }
  cudaStream_t st; CK(cudaStreamCreate(&st));
  Dev d; size_t ln = S.lcol.size();
  CK(cudaMalloc(&d.order,n*4)); CK(cudaMalloc(&d.lptr,(n+1)*4)); CK(cudaMalloc(&d.lcol,ln*4)); CK(cudaMalloc(&d.lval,ln*8)); CK(cudaMalloc(&d.diag,n*8)); CK(cudaMalloc(&d.b,n*8)); CK(cudaMalloc(&d.x,n*8));
  CK(cudaMemcpy(d.order,S.order.data(),n*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(d.lptr,S.lptr.data(),(n+1)*4,cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.lcol,S.lcol.data(),ln*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(d.lval,S.lval.data(),ln*8,cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.diag,S.diag.data(),n*8,cudaMemcpyHostToDevice)); CK(cudaMemcpy(d.b,b.data(),n*8,cudaMemcpyHostToDevice));
  auto check = [&](const char *name, float ms) {
    std::vector<double> x(n); CK(cudaMemcpy(x.data(), d.x, n*8, cudaMemcpyDeviceToHost));
    double e=0; for(int i=0;i<n;i++) e=std::max(e, fabs(x[i]-xr[i])/(fabs(xr[i])+1e-300));
    printf("  %-34s %9.4f ms  relerr %.1e %s\n", name, ms, e, e<1e-12?"ok":"WRONG");
  };
  // SpMV of the full matrix, for scale
  cusparseHandle_t h; CS(cusparseCreate(&h)); CS(cusparseSetStream(h,st));
  int *Ap,*Ac; double *Av; CK(cudaMalloc(&Ap,(n+1)*4)); CK(cudaMalloc(&Ac,A.col.size()*4)); CK(cudaMalloc(&Av,A.col.size()*8));
  CK(cudaMemcpy(Ap,A.ptr.data(),(n+1)*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(Ac,A.col.data(),A.col.size()*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(Av,A.val.data(),A.col.size()*8,cudaMemcpyHostToDevice));
  cusparseSpMatDescr_t mA, mL; cusparseDnVecDescr_t vb, vx; double one=1, zero=0;
  CS(cusparseCreateCsr(&mA,n,n,A.col.size(),Ap,Ac,Av,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_BASE_ZERO,CUDA_R_64F));
  CS(cusparseCreateCsr(&mL,n,n,A.col.size(),Ap,Ac,Av,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_BASE_ZERO,CUDA_R_64F));
  CS(cusparseCreateDnVec(&vb,n,d.b,CUDA_R_64F)); CS(cusparseCreateDnVec(&vx,n,d.x,CUDA_R_64F));
  size_t bs; void *buf; CS(cusparseSpMV_bufferSize(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,mA,vb,&zero,vx,CUDA_R_64F,CUSPARSE_SPMV_ALG_DEFAULT,&bs)); CK(cudaMalloc(&buf,bs+8));
  float tspmv = timeit(st, 50, [&]{ CS(cusparseSpMV(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,mA,vb,&zero,vx,CUDA_R_64F,CUSPARSE_SPMV_ALG_DEFAULT,buf)); });
  printf("  %-34s %9.4f ms\n", "cusparseSpMV (full A)", tspmv);
  cusparseFillMode_t fm = CUSPARSE_FILL_MODE_LOWER; cusparseDiagType_t dt = CUSPARSE_DIAG_TYPE_NON_UNIT;
  CS(cusparseSpMatSetAttribute(mL,CUSPARSE_SPMAT_FILL_MODE,&fm,sizeof(fm))); CS(cusparseSpMatSetAttribute(mL,CUSPARSE_SPMAT_DIAG_TYPE,&dt,sizeof(dt)));
  cusparseSpSVDescr_t sv; CS(cusparseSpSV_createDescr(&sv)); void *sbuf; size_t sbs;
  CS(cusparseSpSV_bufferSize(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,mL,vb,vx,CUDA_R_64F,CUSPARSE_SPSV_ALG_DEFAULT,sv,&sbs)); CK(cudaMalloc(&sbuf,sbs+8));
  CS(cusparseSpSV_analysis(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,mL,vb,vx,CUDA_R_64F,CUSPARSE_SPSV_ALG_DEFAULT,sv,sbuf));
  float tsv = timeit(st, 20, [&]{ CS(cusparseSpSV_solve(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,mL,vb,vx,CUDA_R_64F,CUSPARSE_SPSV_ALG_DEFAULT,sv)); });
  check("cusparseSpSV (lower)", tsv);
  // per-level launches
  float t1 = timeit(st, 10, [&]{ for (int l=0;l<S.nlev;l++){ int lo=S.levptr[l], hi=S.levptr[l+1]; klevel<<<(hi-lo+255)/256,256,0,st>>>(d,lo,hi);} });
  check("per-level launches", t1);
  // graph of per-level launches
  cudaGraph_t g; cudaGraphExec_t ge; CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  for (int l=0;l<S.nlev;l++){ int lo=S.levptr[l], hi=S.levptr[l+1]; klevel<<<(hi-lo+255)/256,256,0,st>>>(d,lo,hi);} 
  CK(cudaStreamEndCapture(st,&g)); CK(cudaGraphInstantiate(&ge,g,0));
  float t2 = timeit(st, 20, [&]{ CK(cudaGraphLaunch(ge,st)); });
  check("CUDA graph of per-level launches", t2);
  // chunk sync-free
  for (int chs : {64, 128, 256, 512}) {
    std::vector<int> cbeg, clev, lnc(S.nlev,0);
    for (int l=0;l<S.nlev;l++) for (int p=S.levptr[l]; p<S.levptr[l+1]; p+=chs) { cbeg.push_back(p); clev.push_back(l); lnc[l]++; }
    int nch = cbeg.size(); cbeg.push_back(n);
    int *dcb,*dcl,*dln; unsigned *done,*tk; CK(cudaMalloc(&dcb,(nch+1)*4)); CK(cudaMalloc(&dcl,nch*4)); CK(cudaMalloc(&dln,S.nlev*4)); CK(cudaMalloc(&done,S.nlev*4+4)); CK(cudaMalloc(&tk,4));
    CK(cudaMemcpy(dcb,cbeg.data(),(nch+1)*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(dcl,clev.data(),nch*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(dln,lnc.data(),S.nlev*4,cudaMemcpyHostToDevice));
    float t3 = timeit(st, 20, [&]{ CK(cudaMemsetAsync(done,0,S.nlev*4+4,st)); CK(cudaMemsetAsync(tk,0,4,st)); kchunk<<<nch,chs,0,st>>>(d,dcb,dcl,nch,dln,done,tk); CK(cudaGetLastError()); });
    char nm[64]; snprintf(nm,64,"chunk sync-free (chunk %d)", chs); check(nm, t3);
    CK(cudaFree(dcb)); CK(cudaFree(dcl)); CK(cudaFree(dln)); CK(cudaFree(done)); CK(cudaFree(tk));
  }
  // flags sync-free
  { unsigned *flags,*tk; CK(cudaMalloc(&flags,n*4)); CK(cudaMemset(flags,0,n*4)); CK(cudaMalloc(&tk,4)); unsigned epoch=0;
    for (int bsz : {64, 128, 256}) {
      float t4 = timeit(st, 20, [&]{ epoch++; CK(cudaMemsetAsync(tk,0,4,st)); kflags<<<(n+bsz-1)/bsz,bsz,0,st>>>(d,n,flags,epoch,tk); CK(cudaGetLastError()); });
      char nm[64]; snprintf(nm,64,"row-flag sync-free (block %d)", bsz); check(nm, t4);
    }
  }
  // ---- permuted (level-ordered) storage: vectors in level order, order = identity
  {
    std::vector<int> rank(n), iota(n); for (int p=0;p<n;p++){ rank[S.order[p]]=p; iota[p]=p; }
    std::vector<int> pcol(ln); for (size_t q=0;q<ln;q++) pcol[q]=rank[S.lcol[q]];
    std::vector<double> pdiag(n), pb(n); for (int p=0;p<n;p++){ pdiag[p]=S.diag[S.order[p]]; pb[p]=b[S.order[p]]; }
    Dev e = d; CK(cudaMalloc(&e.order,n*4)); CK(cudaMalloc(&e.lcol,ln*4)); CK(cudaMalloc(&e.diag,n*8)); CK(cudaMalloc(&e.b,n*8)); CK(cudaMalloc(&e.x,n*8));
    CK(cudaMemcpy(e.order,iota.data(),n*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(e.lcol,pcol.data(),ln*4,cudaMemcpyHostToDevice));
    CK(cudaMemcpy(e.diag,pdiag.data(),n*8,cudaMemcpyHostToDevice)); CK(cudaMemcpy(e.b,pb.data(),n*8,cudaMemcpyHostToDevice));
    auto pcheck = [&](const char *name, float ms) {
      std::vector<double> x(n); CK(cudaMemcpy(x.data(), e.x, n*8, cudaMemcpyDeviceToHost));
      double er=0; for(int p=0;p<n;p++) er=std::max(er, fabs(x[p]-xr[S.order[p]])/(fabs(xr[S.order[p]])+1e-300));
      printf("  %-34s %9.4f ms  relerr %.1e %s\n", name, ms, er, er<1e-12?"ok":"WRONG");
    };
    float t1p = timeit(st, 10, [&]{ for (int l=0;l<S.nlev;l++){ int lo=S.levptr[l], hi=S.levptr[l+1]; klevel<<<(hi-lo+255)/256,256,0,st>>>(e,lo,hi);} });
    pcheck("permuted: per-level launches", t1p);
    cudaGraph_t g2; cudaGraphExec_t ge2; CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    for (int l=0;l<S.nlev;l++){ int lo=S.levptr[l], hi=S.levptr[l+1]; klevel<<<(hi-lo+255)/256,256,0,st>>>(e,lo,hi);} 
    CK(cudaStreamEndCapture(st,&g2)); CK(cudaGraphInstantiate(&ge2,g2,0));
    float t2p = timeit(st, 20, [&]{ CK(cudaGraphLaunch(ge2,st)); });
    pcheck("permuted: CUDA graph of levels", t2p);
    for (int chs : {128, 256, 512, 1024}) {
      std::vector<int> cbeg, clev, lnc(S.nlev,0);
      for (int l=0;l<S.nlev;l++) for (int p=S.levptr[l]; p<S.levptr[l+1]; p+=chs) { cbeg.push_back(p); clev.push_back(l); lnc[l]++; }
      int nch = cbeg.size(); cbeg.push_back(n);
      int *dcb,*dcl,*dln; unsigned *done,*tk; CK(cudaMalloc(&dcb,(nch+1)*4)); CK(cudaMalloc(&dcl,nch*4)); CK(cudaMalloc(&dln,S.nlev*4)); CK(cudaMalloc(&done,S.nlev*4+4)); CK(cudaMalloc(&tk,4));
      CK(cudaMemcpy(dcb,cbeg.data(),(nch+1)*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(dcl,clev.data(),nch*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(dln,lnc.data(),S.nlev*4,cudaMemcpyHostToDevice));
      float t3 = timeit(st, 20, [&]{ CK(cudaMemsetAsync(done,0,S.nlev*4+4,st)); CK(cudaMemsetAsync(tk,0,4,st)); kchunk<<<nch,chs,0,st>>>(e,dcb,dcl,nch,dln,done,tk); CK(cudaGetLastError()); });
      char nm[64]; snprintf(nm,64,"permuted: chunk sync-free (%d)", chs); pcheck(nm, t3);
    }
    { unsigned *flags,*tk; CK(cudaMalloc(&flags,n*4)); CK(cudaMemset(flags,0,n*4)); CK(cudaMalloc(&tk,4)); unsigned epoch=0;
      for (int bsz : {128, 256}) {
        float t4 = timeit(st, 20, [&]{ epoch++; CK(cudaMemsetAsync(tk,0,4,st)); kflags<<<(n+bsz-1)/bsz,bsz,0,st>>>(e,n,flags,epoch,tk); CK(cudaGetLastError()); });
        char nm[64]; snprintf(nm,64,"permuted: row-flag sync-free (%d)", bsz); pcheck(nm, t4);
      }
    }
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
