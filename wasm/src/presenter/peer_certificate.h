/* The certificate the peer must have (FreeRDP's peer refuses to start
 * without one) although no TLS runs in the worker: a fresh self-signed
 * P-256 certificate per presenter, made in memory. Its SubjectPublicKey is
 * what the gateway may report to the display in its `secured` message (the
 * display's client, which has no NLA towards a presenter, only checks that a
 * report came). */
#ifndef LANTERNA_PEER_CERTIFICATE_H
#define LANTERNA_PEER_CERTIFICATE_H

#include "presenter.h"

/* Sets FreeRDP_RdpServerCertificate and fills lp->publicKey. */
BOOL lp_peer_certificate_install(LpContext* lp);

#endif
