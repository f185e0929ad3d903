"""The PyPI wsdiscovery package as an independent WS-Discovery client.

Probes for Lanterna displays (Types lp:Display), then sends a Resolve for each
endpoint found and reports what came back, as JSON lines on stdout.
Run inside the presenter's namespace with the project venv's python.
"""
import json
import sys
import time

from wsdiscovery import QName
from wsdiscovery.discovery import ThreadedWSDiscovery

LANTERNA = 'urn:lanterna:ws:2026:projector'


def main():
    wsd = ThreadedWSDiscovery()
    wsd.start()
    try:
        found = wsd.searchServices(types=[QName(LANTERNA, 'Display')], timeout=float(sys.argv[1]) if len(sys.argv) > 1 else 3)
        for service in found:
            print(json.dumps({'event': 'probe-match', 'endpoint': service.getEPR(), 'xaddrs': service.getXAddrs(),
                              'types': [str(t) for t in service.getTypes()], 'scopes': [str(s) for s in service.getScopes()]}), flush=True)
        for service in found:
            epr = service.getEPR()
            wsd.clearRemoteServices()
            wsd._sendResolve(epr)  # the package's own Resolve (no public wrapper in 2.1.2)
            deadline = time.time() + 3
            while time.time() < deadline and epr not in wsd._remoteServices:
                time.sleep(0.05)
            resolved = wsd._remoteServices.get(epr)
            print(json.dumps({'event': 'resolve-match', 'endpoint': epr, 'xaddrs': resolved.getXAddrs() if resolved else None}), flush=True)
    finally:
        wsd.stop()


main()
