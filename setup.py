"""setuptools' package discovery: every package under kb/ (found, never listed by hand), plus the
embedded corpus and the templates, which live beside kb/ in a checkout and ride in the wheel as
``kb._corpus`` and ``kb._templates`` (``package-dir`` in pyproject.toml; see kb/base/paths.py).

pyproject.toml cannot mix found packages with mapped ones, hence these lines; tests/test_wheel.py
builds and installs the wheel and runs it, so a package or data file left out fails a test.
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=[
        *find_namespace_packages(include=["kb", "kb.*"], exclude=["*.__pycache__"]),
        "kb._corpus",
        "kb._templates",
    ]
)
