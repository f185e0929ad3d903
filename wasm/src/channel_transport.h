/* FreeRDP's transport over the gateway's message channel instead of a socket.
 * Installed with freerdp_set_io_callbacks(): no DNS, no TCP, no TLS here (the
 * gateway terminates TLS and reports the server key); reads come from the
 * session's receive ring, each written PDU goes to JS as one binary frame. */
#ifndef LANTERNA_CHANNEL_TRANSPORT_H
#define LANTERNA_CHANNEL_TRANSPORT_H

#include "session.h"

BOOL lt_channel_transport_install(LtContext* lt);

#endif
