// host emulation of PhaseBMMA's index logic for one warp over all tiles of a small L (PTX m8n8k4 f64 layouts)
// build and run: g++ -O1 mma-emulation.cpp -o emu && ./emu (prints the largest error of y for each L)
#include <cstdio>
#include <cmath>
#include <vector>
#include <random>
typedef long long PI;
static void TileOf(PI b, PI *I, PI *J){ PI i=(PI)((sqrt(8.0*(double)b+1.0)-1.0)/2.0); while(i*(i+1)/2>b)i--; while((i+1)*(i+2)/2<=b)i++; *I=i; *J=b-i*(i+1)/2; }
// warp-level mma: a[lane] = A[l/4][l%4], b[lane] = B[l%4][l/4], d[lane][i] += (A B)[l/4][2(l%4)+i]
static void Dmma(double d[32][2], const double a[32], const double b[32]){
  double A[8][4],B[4][8]; for(int l=0;l<32;l++){A[l>>2][l&3]=a[l]; B[l&3][l>>2]=b[l];}
  for(int l=0;l<32;l++) for(int i=0;i<2;i++){int r=l>>2,c=2*(l&3)+i; double s=0; for(int k=0;k<4;k++) s+=A[r][k]*B[k][c]; d[l][i]+=s;}
}
int main(){
  for (int L : {1, 5, 31, 32, 33, 64, 77, 130}) {
  PI lda=L+3; std::vector<double> A(lda*L), xc(L), y(L,0), yref(L,0); std::mt19937 g(1); std::uniform_real_distribution<double> U(-1,1);
  for(auto &a:A)a=U(g); for(auto &x:xc)x=U(g); double scal=0.7;
  // upper triangle garbage (must not be read): NaN
  for(PI c=0;c<L;c++) for(PI r=0;r<c;r++) A[r+c*lda]=NAN;
  auto v=[&](PI k){return k<L?(k==0?1.0:scal*xc[k]):0.0;};
  for(PI r=0;r<L;r++) for(PI c=0;c<=r;c++){ double a=A[r+c*lda]; yref[r]+=a*v(c); if(r>c) yref[c]+=a*v(r);}
  PI T=(L+31)/32, nt=T*(T+1)/2;
  for(PI b=0;b<nt;b++){ PI I,J; TileOf(b,&I,&J); PI r0=I*32,c0=J*32;
    double vr[32],vc[32]; for(int l=0;l<32;l++){vr[l]=v(r0+l); vc[l]=v(c0+l);}
    double dr[4][32][2]={}; 
    for(int q=0;q<4;q++){
      double cur[4][2][32];
      for(int l=0;l<32;l++){int gg=l>>2,t=l&3; for(int p=0;p<4;p++){PI r=r0+8*p+gg; for(int h=0;h<2;h++){PI c=c0+8*q+4*h+t; cur[p][h][l]=(r<L&&c<L&&r>=c)?A[r+c*lda]:0.0;}}}
      double dc[32][2]={};
      for(int h=0;h<2;h++){ double bv[32]; for(int l=0;l<32;l++){int gg=l>>2,t=l&3; bv[l]=vc[8*q+4*h+t]; if(gg!=0)bv[l]=0;}
        for(int p=0;p<4;p++) Dmma(dr[p],cur[p][h],bv);}
      for(int p=0;p<4;p++) for(int h=0;h<2;h++){ double bc[32],av[32];
        for(int l=0;l<32;l++){int gg=l>>2,t=l&3; int src=16*h+4*t+(gg&3); double x0=cur[p][0][src],x1=cur[p][1][src]; bc[l]=gg<4?x0:x1; PI r=r0+8*p+4*h+t,c=c0+8*q+gg; if(r==c)bc[l]=0; av[l]=vr[8*p+4*h+t]; if(gg!=0)av[l]=0;}
        Dmma(dc,av,bc);}
      for(int l=0;l<4;l++){int t=l&3; PI c=c0+8*q+2*t; if(c<L) y[c]+=dc[l][0]; if(c+1<L) y[c+1]+=dc[l][1];}
    }
    for(int l=0;l<32;l++){int gg=l>>2,t=l&3; if(t==0) for(int p=0;p<4;p++){PI r=r0+8*p+gg; if(r<L) y[r]+=dr[p][l][0];}}
  }
  double e=0; for(PI i=0;i<L;i++) e=fmax(e,fabs(y[i]-yref[i])); printf("L=%d max err %.2e\n",L,e);
  }
}
