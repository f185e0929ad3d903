/* Pointer shape and position for the renderer's cursor texture. A shape is
 * posted with LT_EVENT_POINTER_SET as a malloc'd record JS frees after reading:
 *   int32 [0] width  [1] height  [2] hotspot x  [3] hotspot y
 *   then width × height × 4 bytes, R G B A, rows top to bottom. */
#ifndef LANTERNA_POINTER_OUTPUT_H
#define LANTERNA_POINTER_OUTPUT_H

#include "session.h"

#define LT_POINTER_HEADER_WORDS 4

BOOL lt_pointer_output_install(LtContext* lt);

#endif
