/* The server half of the graphics pipeline: opens the rdpgfx dynamic channel
 * once drdynvc is ready, confirms the client's best capability set (and
 * whether it takes AVC420), creates the one surface the presenter draws on,
 * and sends each picture as a GFX frame (StartFrame, one WireToSurface1,
 * EndFrame). Runs on the peer thread only. */
#ifndef LANTERNA_GFX_OUTPUT_H
#define LANTERNA_GFX_OUTPUT_H

#include "presenter.h"

BOOL lp_gfx_create(LpContext* lp);
void lp_gfx_free(LpContext* lp);

/* Opens the channel when drdynvc is ready; FALSE only on a failure that ends the session. */
BOOL lp_gfx_poll(LpContext* lp);

/* The channel's event handle once it is open (NULL before). */
HANDLE lp_gfx_event(LpContext* lp);

/* Sends one picture: 0 when sent, else why not (enum lp_drop). */
int lp_gfx_send_frame(LpContext* lp, const LpFrame* frame);

#endif
