/* The clipboard channel (cliprdr) joined for servers that require it, its
 * handshake answered, and no clipboard content carried either way. */
#ifndef LANTERNA_CLIPBOARD_HANDSHAKE_H
#define LANTERNA_CLIPBOARD_HANDSHAKE_H

#include <freerdp/freerdp.h>

/* Settings that load cliprdr and keep FreeRDP's own filter refusing every
 * request for our clipboard; part of the session's defaults. */
BOOL lt_clipboard_handshake_settings(rdpSettings* settings);

/* PubSub handlers: answer the handshake on the channel once it connects. */
void lt_clipboard_handshake_on_connected(void* context, const ChannelConnectedEventArgs* e);
void lt_clipboard_handshake_on_disconnected(void* context, const ChannelDisconnectedEventArgs* e);

#endif
