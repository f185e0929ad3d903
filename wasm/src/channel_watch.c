#include "channel_watch.h"

BOOL lt_channel_watch(rdpContext* context, pChannelConnectedEventHandler connected,
                      pChannelDisconnectedEventHandler disconnected)
{
	return (PubSub_SubscribeChannelConnected(context->pubSub, connected) >= 0) &&
	       (PubSub_SubscribeChannelDisconnected(context->pubSub, disconnected) >= 0);
}

void lt_channel_unwatch(rdpContext* context, pChannelConnectedEventHandler connected,
                        pChannelDisconnectedEventHandler disconnected)
{
	(void)PubSub_UnsubscribeChannelConnected(context->pubSub, connected);
	(void)PubSub_UnsubscribeChannelDisconnected(context->pubSub, disconnected);
}
