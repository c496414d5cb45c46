"""CPython's own event loop tests (test.test_asyncio.test_events), run on vigil's loop.

The mixins are imported from the interpreter's test package (Debian:
libpython3.11-testsuite), not copied. Every test the default loop passes must pass here;
the only exceptions are tests that read private attributes of asyncio's selector loop,
each skipped below with its reason. The backend is vigil's default or VIGIL_BACKEND."""
import unittest

import pytest

te = pytest.importorskip("test.test_asyncio.test_events",
                         reason="CPython's test package is not installed (Debian: libpython3.11-testsuite)")
from test.test_asyncio import utils as test_utils  # noqa: E402

import vigil  # noqa: E402

# Tests that read private attributes of the selector loop; nothing else is skipped.
SELECTOR_PRIVATE = {
    "test_timeout_rounding": "reads the selector loop's private _run_once and _selector",
    "test_internal_fds": "reads the selector loop's private _internal_fds, _csock and _ssock",
}


class VigilEventLoopTests(te.UnixEventLoopTestsMixin, te.SubprocessTestsMixin, test_utils.TestCase):
    def create_event_loop(self):
        return vigil.Loop()


for _name, _why in SELECTOR_PRIVATE.items():
    setattr(VigilEventLoopTests, _name, unittest.skip(_why)(lambda self: None))
