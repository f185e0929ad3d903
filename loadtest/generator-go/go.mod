module github.com/lanterna/loadtest-generator

go 1.26.8

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/gorilla/websocket v1.5.3
	lanterna/dataplane v0.0.0
)

replace lanterna/dataplane => ../../gateway/dataplane
