/* The peer's transport: FreeRDP's rdpTransportIo over the receive ring (bytes
 * from the gateway, fed by JS) and a JS event per written PDU. No socket and
 * no TLS inside the worker: the leg to the gateway is the presenter page's wss
 * connection (docs/browser-presenter.md says why and what the gateway does). */
#ifndef LANTERNA_PEER_TRANSPORT_H
#define LANTERNA_PEER_TRANSPORT_H

#include "presenter.h"

/* Installs the callbacks and attaches the ring as the peer's transport layer.
 * Call once the peer's context exists (from its ContextNew). */
BOOL lp_peer_transport_install(LpContext* lp);

#endif
