/* Sorts FreeRDP's last error into the few reasons a projector can act on. Pure. */
#ifndef LANTERNA_SESSION_ERRORS_H
#define LANTERNA_SESSION_ERRORS_H

#include <winpr/wtypes.h>

int lt_reason_for_error(UINT32 lastError);

#endif
