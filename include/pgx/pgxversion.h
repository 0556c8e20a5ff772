/* pgxversion.h: the one place that states PGX's version. The makefile reads it for the shared library's
   soname (libpgx.so.MAJOR.MINOR) and the pkg-config file; PGXGetVersion(), -help and the PCs' View print it. */
#pragma once
#define PGX_VERSION_MAJOR 0
#define PGX_VERSION_MINOR 2
#define PGX_VERSION_PATCH 0

#define PGX_VERSION_(a, b, c) #a "." #b "." #c
#define PGX_VERSION_X(a, b, c) PGX_VERSION_(a, b, c)
/* "0.2.0" */
#define PGX_VERSION_STRING PGX_VERSION_X(PGX_VERSION_MAJOR, PGX_VERSION_MINOR, PGX_VERSION_PATCH)
/* true when this PGX is at least MAJOR.MINOR.PATCH */
#define PGX_VERSION_GE(MAJOR, MINOR, PATCH) \
  (PGX_VERSION_MAJOR > (MAJOR) || (PGX_VERSION_MAJOR == (MAJOR) && (PGX_VERSION_MINOR > (MINOR) || (PGX_VERSION_MINOR == (MINOR) && PGX_VERSION_PATCH >= (PATCH)))))
