"""Everything else is in pyproject.toml. Packages are discovered; the two top-level folders
shipped inside the wheel (styles/ as curator.styles, sample_palace/ as curator.sample_palace,
mapped in [tool.setuptools.package-dir]) are added here: discovery sees only curator/."""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["curator", "curator.*"]),
        "curator.styles",
        "curator.sample_palace",
    ]
)
