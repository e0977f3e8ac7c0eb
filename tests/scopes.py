"""The two scopes of a sampled check: a sample in the default run, the whole under ``-m complete``
(an opt-in run; ``.ci/run`` runs the default). A test parametrised with :data:`SCOPES` takes
``complete``."""
import pytest

SCOPES = [pytest.param(False, id="sample"), pytest.param(True, id="all", marks=pytest.mark.complete)]
