#!/usr/bin/env python3
"""A packet-level delay line between two network namespaces.

The kernel here has no netem (CONFIG_NET_SCH_NETEM is off), so the
long-fat-network case builds its own: one TUN device inside each namespace,
and this loop carries every IP packet from one to the other after a fixed
delay. TCP runs end to end across it, so window sizing and slow start behave
as on a real long path. Prints one JSON line when both devices exist; exits on
SIGTERM (the devices vanish with it).
"""
import argparse
import collections
import ctypes
import fcntl
import json
import os
import selectors
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000

libc = ctypes.CDLL(None, use_errno=True)


def enter_namespace(name):
    fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {name}")
    finally:
        os.close(fd)


def open_tun(namespace, device):
    enter_namespace(namespace)
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", device.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay")
    parser.add_argument("--near-ns", required=True)
    parser.add_argument("--far-ns", required=True)
    parser.add_argument("--near-dev", required=True)
    parser.add_argument("--far-dev", required=True)
    args = parser.parse_args()

    near = open_tun(args.near_ns, args.near_dev)
    far = open_tun(args.far_ns, args.far_dev)
    delay = args.delay_ms / 1000.0
    # packets in flight per direction, in arrival order (a constant delay keeps order)
    queues = {near: collections.deque(), far: collections.deque()}
    peer = {near: far, far: near}
    selector = selectors.DefaultSelector()
    selector.register(near, selectors.EVENT_READ)
    selector.register(far, selectors.EVENT_READ)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(json.dumps({"msg": "ready", "near": args.near_dev, "far": args.far_dev}), flush=True)

    while True:
        now = time.monotonic()
        due = [queue[0][0] for queue in queues.values() if queue]
        timeout = max(0.0, min(due) - now) if due else None
        for key, _ in selector.select(timeout):
            source = key.fd
            arrival = time.monotonic() + delay
            target = queues[peer[source]]
            for _ in range(256):
                try:
                    packet = os.read(source, 65536)
                except BlockingIOError:
                    break
                target.append((arrival, packet))
        now = time.monotonic()
        for out, queue in queues.items():
            while queue and queue[0][0] <= now:
                try:
                    os.write(out, queue.popleft()[1])
                except (BlockingIOError, OSError):
                    pass  # a full device queue drops, as a router would


if __name__ == "__main__":
    main()
