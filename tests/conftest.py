"""Test-session settings shared by every test folder."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Tests never write the user's cache: topogen's SST element builds
    (``topogen.drivers.sst_nic.cache_root``) go to a folder of this session."""
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old
