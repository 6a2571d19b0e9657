"""Canned test-runner output in the shapes SWE-bench instances produce (shared by parser and agreement tests)."""

ESC = "\x1b"

PYTEST = """\
+ : '>>>>> Start Test Output'
+ pytest --no-header -rA --tb=no -p no:cacheprovider tests/test_ops.py
============================= test session starts ==============================
collected 7 items

tests/test_ops.py ..FF.sx                                                [100%]

==================================== PASSES ====================================
=========================== short test summary info ============================
PASSED tests/test_ops.py::test_sub
PASSED tests/test_ops.py::test_mul
FAILED tests/test_ops.py::test_add_fixed - assert -1 == 5
FAILED tests/test_ops.py::test_add_negative - AssertionError: assert 1 == -5
PASSED tests/test_ops.py::test_param[a b]
SKIPPED [1] tests/test_ops.py:20: needs network
XFAIL tests/test_ops.py::test_known_bug - reason: issue 12
ERROR tests/test_broken.py - ImportError: cannot import name 'x'
==================== 2 failed, 3 passed, 1 skipped, 1 xfailed in 0.05s =====================
+ : '>>>>> End Test Output'
"""

PYTEST_V2 = (
    "+ : '>>>>> Start Test Output'\n"
    f"{ESC}[32mPASSED{ESC}[0m astropy/io/tests/test_a.py::test_one\n"
    f"{ESC}[31mFAILED{ESC}[0m astropy/io/tests/test_a.py::test_two - assert 0\n"
    "astropy/io/tests/test_a.py::test_three PASSED\n"
    "astropy/io/tests/test_a.py::test_four SKIPPED\n"
    "SKIPPED [2] astropy/io/tests/test_a.py:9: no scipy\n"
    "PASSED astropy/io/tests/test_a.py::test_param[1 2]\n"
    "+ : '>>>>> End Test Output'\n"
)

PYTEST_OPTIONS = """\
PASSED tests/test_x.py::test_file[/tmp/pytest-of-root/pytest-0/data/file.txt]
PASSED tests/test_x.py::test_url[//host/a/b]
FAILED tests/test_x.py::test_plain - boom
"""

DJANGO = """\
+ : '>>>>> Start Test Output'
+ ./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 forms_tests.tests.test_forms
Testing against Django installed in '/testbed/django'
Importing application forms_tests
test_a (forms_tests.tests.test_forms.FormsTest) ... ok
test_b (forms_tests.tests.test_forms.FormsTest) ... FAIL
test_c (forms_tests.tests.test_forms.FormsTest) ... ERROR
test_d (forms_tests.tests.test_forms.FormsTest) ... skipped 'Requires PIL'
test_e (forms_tests.tests.test_forms.FormsTest) ... some printed output
ok
test_f (forms_tests.tests.test_forms.FormsTest) ...  OK

======================================================================
FAIL: test_b (forms_tests.tests.test_forms.FormsTest)
----------------------------------------------------------------------
ERROR: test_g (forms_tests.tests.test_forms.FormsTest)
----------------------------------------------------------------------
Ran 7 tests in 0.010s

FAILED (failures=1, errors=2, skipped=1)
+ : '>>>>> End Test Output'
"""

SYMPY = """\
+ : '>>>>> Start Test Output'
============================= test process starts ==============================
sympy/core/tests/test_basic.py[4]
test_add ok
test_sub F
test_mul E
test_div ok
________________________________________________________________________________
_____________ sympy/core/tests/test_basic.py:test_sub __________________________
Traceback (most recent call last):
AssertionError
============ tests finished: 2 passed, 1 failed, 1 exceptions in 0.10 seconds ============
+ : '>>>>> End Test Output'
"""

SEABORN = """\
tests/test_core.py::TestA::test_x PASSED [ 50%]
PASSED tests/test_core.py::TestA::test_y
FAILED tests/test_core.py::TestA::test_z - ValueError
"""
