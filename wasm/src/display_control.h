/* Display Control ([MS-RDPEDISP], FreeRDP's `disp` dynamic channel): the page
 * asks the server to follow its panel's size without reconnecting. A request
 * from JS is only recorded here; the RDP thread sends it from its event loop,
 * the thread that owns the channel. A server without the channel never opens
 * it: the request stays unsent and the page keeps letterboxing. */
#ifndef LANTERNA_DISPLAY_CONTROL_H
#define LANTERNA_DISPLAY_CONTROL_H

#include <freerdp/settings.h>
#include <winpr/wtypes.h>

#include "session.h"

/* Subscribes to channel connects/disconnects (pre-connect). */
BOOL lt_display_control_install(LtContext* lt);
void lt_display_control_uninstall(LtContext* lt);

/* Records a wish: a desktop of width×height with these scale factors (percent).
 * Width is made even and both are clamped to what [MS-RDPEDISP] 2.2.2.2.1
 * allows (200–8192). Any thread. */
void lt_display_control_request(LtContext* lt, UINT32 width, UINT32 height, UINT32 desktopScale,
                                UINT32 deviceScale);

/* 1 once the server has opened the channel and sent its capabilities. Any thread. */
int lt_display_control_ready(LtContext* lt);

/* On the RDP thread: sends a recorded wish when the channel is ready. */
void lt_display_control_poll(LtContext* lt);

#endif
