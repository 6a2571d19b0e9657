"""Test helpers shipped with the package: scripted model server, fakes, conformance suites."""
