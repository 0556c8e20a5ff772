/* Kept for sources that include the shims by their old path: they are public now (include/pgx/pgxcompat.h). */
#pragma once
#include <pgx/pgxcompat.h>
