/* The server half of RDPEI ([MS-RDPEI], FreeRDP's rdpei server, issue 30):
 * the presenter offers `Microsoft::Windows::RDS::Input` once drdynvc is up,
 * sends SC_READY, and hands each touch frame the display's client sends to JS
 * (LP_EVENT_TOUCH: contact id, flags, x, y, pressure). A browser cannot move
 * its computer's pointer: what the page does with them is its own affair.
 * Runs on the peer thread, without a thread of its own. A display whose
 * client has no RDPEI never answers on the channel and nothing else changes;
 * one that sends what does not parse loses touch for the session
 * (LP_EVENT_TOUCH_OFF), never the picture. */
#ifndef LANTERNA_PRESENTER_TOUCH_INPUT_H
#define LANTERNA_PRESENTER_TOUCH_INPUT_H

#include "presenter.h"

/* Most contacts of one frame handed to JS ([MS-RDPEI] 2.2.3.1: a client has at most 256). */
#define LP_TOUCH_MAX_CONTACTS 256u

/* Int32 words per contact in a touch record: id, contactFlags, x, y, pressure
 * (-1 when absent), fieldsPresent. The record is [contact count, frame offset
 * in µs (clipped), then the contacts]; the contract with wasm/js/lanternaPresenter.js. */
#define LP_TOUCH_WORDS_PER_CONTACT 6u
#define LP_TOUCH_RECORD_HEADER_WORDS 2u

BOOL lp_touch_create(LpContext* lp);
void lp_touch_free(LpContext* lp);

/* Opens the channel once drdynvc is ready; FALSE only on a failure that ends the session. */
BOOL lp_touch_poll(LpContext* lp);

/* The channel's event handle once opened (NULL before, or after touch went off). */
HANDLE lp_touch_event(LpContext* lp);

/* Reads what the client sent on it (a bounded number of reads per call). */
void lp_touch_handle_messages(LpContext* lp);

#endif
