"""Starts Apertium APy (PyPI apertium-apy) bound to 127.0.0.1 only, for scripts/bench/translation.ts.

APy binds every interface and has no option for the address, so Tornado's bind() is wrapped
before APy's main() runs. Usage: apertium-apy.py <port> [extra APy arguments...]
"""
import sys

import tornado.tcpserver

_bind = tornado.tcpserver.TCPServer.bind


def _bind_loopback(self, port, address=None, *args, **kwargs):
    return _bind(self, port, "127.0.0.1", *args, **kwargs)


tornado.tcpserver.TCPServer.bind = _bind_loopback

if __name__ == "__main__":
    port, *extra = sys.argv[1:]
    # APy's parse_args() takes sys.argv as a default bound at import time: set it first.
    sys.argv = ["apertium-apy", "-p", port, *extra, "/usr/share/apertium"]
    from apertium_apy.apy import main

    sys.exit(main())
