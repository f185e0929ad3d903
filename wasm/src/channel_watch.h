/* A channel's pair of FreeRDP handlers (connected, disconnected) on a
 * context's PubSub, subscribed before connect and unsubscribed after
 * disconnect together: each handler checks the channel's name, so a channel
 * the glue takes (display control, touch, the clipboard handshake, and
 * client-common's own) watches every connect and disconnect. */
#ifndef LANTERNA_CHANNEL_WATCH_H
#define LANTERNA_CHANNEL_WATCH_H

#include <freerdp/event.h>
#include <freerdp/freerdp.h>

/* FALSE when either could not be subscribed (the session does not connect). */
BOOL lt_channel_watch(rdpContext* context, pChannelConnectedEventHandler connected,
                      pChannelDisconnectedEventHandler disconnected);

void lt_channel_unwatch(rdpContext* context, pChannelConnectedEventHandler connected,
                        pChannelDisconnectedEventHandler disconnected);

#endif
