"""Test logs synthesised in each non-Python runner's output format, for the parser agreement test.

``LOGS``: (parser name, instance id, version, log); every log names at least three tests and, where the runner
prints them, passing, failing, skipped and errored ones. Instance id and version matter to the parsers that
pick a format per instance (jekyll, immutable-js, Fusion Next, Lighthouse).
"""

from __future__ import annotations

ESC = "\x1b"

REDIS = """[ok]: SET and GET (2 ms)
[err]: GETRANGE against wrong type in tests/unit/type/string.tcl
[skip]: SETRANGE with huge offset
[ignore]: LCS basic
[ok]: MGET against non existing key
[exception]: Executing test client: broken pipe
"""
JQ = "PASS: test 1 .a\nFAIL: test 2 .b[]\n  PASS: test 3 {a}\nSKIP: test 4\n"
DOCTEST = """[doctest] running
<doctest binary="tests">
  <Options order_by="file" rand_seed="0"/>
  <TestSuite>
    <TestCase name="json parse" filename="src/a.cpp" line="10">
      <SubCase name="object" filename="src/a.cpp" line="12">
        <Expression success="true" type="CHECK" filename="src/a.cpp" line="13"/>
      </SubCase>
      <SubCase name="array" filename="src/a.cpp" line="20">
        <Expression success="false" type="CHECK" filename="src/a.cpp" line="21"><Original>a == b</Original></Expression>
        <SubCase name="nested" filename="src/a.cpp" line="22">
          <Expression success="true" type="CHECK" filename="src/a.cpp" line="23"/>
        </SubCase>
      </SubCase>
    </TestCase>
    <TestCase name="dump" filename="src/b.cpp" line="5">
      <SubCase name="pretty" filename="src/b.cpp" line="6"/>
    </TestCase>
  </TestSuite>
  <OverallResultsAsserts successes="2" failures="1"/>
</doctest>
"""
MICROPYTHON = (
    "pass  basics/int_big.py\nFAIL  basics/list_slice.py\nskip  extmod/ssl_basic.py\npass  micropython/heap.py\n"
)
GOOGLETEST = """[==========] Running 4 tests from 1 test suite.
[ RUN      ] FormatTest.Args
[       OK ] FormatTest.Args (0 ms)
[ RUN      ] FormatTest.Width
[  FAILED  ] FormatTest.Width (1 ms)
[ RUN      ] FormatTest.Chrono
[       OK ] FormatTest.Chrono (3 ms)
[  SKIPPED ] FormatTest.Locale (0 ms)
[  FAILED  ] 1 test, listed below:
"""
GOTEST = """=== RUN   TestReplacer
--- PASS: TestReplacer (0.00s)
=== RUN   TestParse
--- FAIL: TestParse (0.01s)
    --- SKIP: TestParse/windows (0.00s)
    --- PASS: TestParse/unix (0.00s)
FAIL
"""
CARGO = """running 4 tests
test regression::r2208 ... ok
test regression::r2209 ... FAILED
test regression::r1 ... ignored
test misc::binary ... ok
"""
MAVEN = """+ mvn test -B -Dtest=com.google.gson.JsonTest#testA
[INFO] BUILD SUCCESS
+ mvn test -B -Dtest=com.google.gson.JsonTest#testB
[ERROR] Tests run: 1, Failures: 1
[INFO] BUILD FAILURE
+ mvn test -B -Dtest=com.google.gson.OtherTest#testC
+ mvn test -B -Dtest=com.google.gson.OtherTest#testD
[INFO] BUILD SUCCESS
[INFO] BUILD FAILURE
"""
MAVEN_LATE = """[INFO] BUILD SUCCESS
[INFO] BUILD FAILURE
+ mvn test -Dtest=a.B#x
+ mvn test -Dtest=a.B#y
+ mvn test -Dtest=a.B#z
[INFO] BUILD SUCCESS
"""
ANT = (
    "    [junit] [PASS] lombok.TestJavac.testA\n [junit] [FAIL] lombok.TestJavac.testB\n [junit] [ERR] lombok.X.testC\n"
)
GRADLE = """> Task :lucene:core:test
org.apache.lucene.TestA > testOne PASSED
org.apache.lucene.TestA > testTwo FAILED
org.apache.lucene.TestB > testThree
WARNING: A terminally deprecated method was called
PASSED
io.reactivex.FlowableTest > skipped SKIPPED
"""
PHPUNIT = """PHPUnit 10.5.0 by Sebastian Bergmann and contributors.

Calculator (Tests\\Unit\\Calculator)
 ✔ Adds numbers
 ✘ Divides by zero
   │ Failed asserting that false is true.
 ↩ Skipped on windows
Parser (Tests\\Unit\\Parser)
 ✔ Parses dates
"""
MINITEST = "TestFilters#test_date. 0.01 s = .\nTestFilters#test_slug. 0.02 s = F\nTestSite#test_build. 0.00 s = E\n"
CUCUMBER = "Scenario: build the site ....\nScenario: serve drafts ...F\nScenario: watch changes .....\n"
RUBY_UNIT = "TestConfig#test_parse: .\ntest: TestBuffer#test_chunk: F\nTestOutput#test_write: E\nTestTime#test_now: O\n"
RSPEC = (
    "Fastlane::Actions does x - passed\nFastlane::Actions does y - failed\nFPM::Package builds - passed\n"
    "skipped one - pending\n"
)
JEST = (
    "  Parser\n    ✓ parses numbers (3 ms)\n    ✕ parses strings (1 ms)\n    ○ skipped parses dates\n"
    "    ✓ parses lists\n"
)
JEST_JSON = "[PASSED] Seq > map > works\n[FAILED] Seq > filter > drops\n[PASSED] Map > set\n"
VITEST = (
    " ✓ packages/a.spec.ts > reactivity > ref 3ms\n × packages/a.spec.ts > computed\n"
    " ↓ packages/a.spec.ts > watch [skipped]\n ✓ packages/b.spec.ts > h\n"
)
KARMA = """Chrome Headless 120 is starting
Starting browser ChromeHeadless
  Component
    ✔ renders
    ✖ updates props
    hooks
      ✔ useState
  Other
    ✔ mounts
SUMMARY:
✔ 3 tests completed
"""
TAP = "TAP version 13\nok 1 Vector3 add\nnot ok 2 Vector3 cross\nok 3 Matrix4 invert # SKIP\n"
JEST_FILES = "PASS src/a.test.js (1.2 s)\nFAIL src/b.test.js\nPASS src/c.test.js (12 ms)\nPASS src/d.test.js (3s)\n"
CALYPSO = """+ ./node_modules/.bin/jest --verbose -c=test/client/jest.config.js 'client/state/test/index.js'
PASS client/state/test/index.js
  state
    reducer
      ✓ returns the default (5ms)
      ✕ handles the action (3ms)
    selectors
      ✓ selects
Test Suites: 1 failed, 1 total
"""
CHART_JS = (
    "Chrome 120.0.0 (Linux x86_64) Core.Controller should draw FAILED\n"
    f"{ESC}[31mChrome 120.0.0 (Linux x86_64) Scale ticks rotate FAILED{ESC}[39m\n"
    "Chrome 120.0.0 (Linux x86_64) Plugin.legend hides FAILED\nExecuted 30 of 30 (3 FAILED)\n"
)
MARKED = "  1) marked links fails\n1) Markdown em\n2) Markdown strong\n3) GFM tables\n"
P5JS = """  1) Color
       p5.prototype.color
         should create a color:
     AssertionError: expected 1
  2) Graphics
       resize:
     Error: bad
{
  "json": true
}
<div>
  9) not a test:
</div>
  3) Typography
       textWidth
         measures:
"""
HIGHLIGHTJS = """  markup
    ✓ highlights a tag (5ms)
    1) highlights an attribute
  css
    ✔ highlights a selector
  4 passing (20ms)
  1 failing

  1) markup
       highlights an attribute:
"""
PRISM = (
    "+ ./node_modules/.bin/mocha tests/run.js --reporter json\n"
    '{\n  "stats": {"passes": 2},\n  "failures": [{"fullTitle": "Languages javascript fails"}],\n'
    '  "passes": [{"fullTitle": "Languages css works"}, {"fullTitle": "Languages html works"}]\n}\n'
)
ESLINT = (
    "  1) no-unused-vars\n       invalid\n         let a;:\n     AssertionError [ERR_ASSERTION]: x\n"
    "  2) no-undef valid\n     TypeError: y\n  3) semi\n      Error: z\n"
)
BPMN = (
    f"{ESC}[2KPhantomJS 2.1.1 (Linux 0.0.0) Modeler should import FAILED\n"
    f"{ESC}[2KPhantomJS 2.1.1 (Linux x86_64) Viewer should render FAILED\n"
    "Chrome Headless 90.0 (Linux x86_64) Copy paste works FAILED\n"
    "HeadlessChrome 90.0.4430 (Linux 0.0.0) Modeling replaces FAILED\n"
)
OPENLAYERS = (
    "Chrome Headless 90.0.1 (Linux x86_64) ol/Map renders FAILED\n"
    "Chrome 90.0.1 (Linux x86_64) ol/View fits FAILED\n"
    "  1) ol/layer\n     sets opacity\n     Error: bad\ncase circle-style: mismatch\n"
)
GROMMET = (
    "PASS src/js/A.test.js (5 s)\nFAIL src/js/B.test.js\nPASS src/js/C.test.js (120 ms)\nFAIL src/js/D.test.js (1.5s)\n"
)
NEXT_KARMA = """ xvfb-run karma start
Starting browser Chrome
  Button
    ✓ renders
    ✗ handles click
  Input
    LOG: 'noise'
    ✓ types
TOTAL: 2 SUCCESS
"""
NEXT_CYPRESS = """  Running:  button.spec.js                                                (1 of 2)


  Button
    ✓ renders (120ms)
    1) handles click
    ✓ hovers (5ms)

  Running:  input.spec.js                                                 (2 of 2)


  Input
    ✓ types (3ms)
"""
LIGHTHOUSE_MOCHA = """running 3 test files
  Audit
    ✔ passes (12ms)
    1) fails
    nested
      ✔ deep (1ms)
  3 passing
"""
LIGHTHOUSE_JSON = (
    "+ ./node_modules/.bin/mocha --reporter json\n"
    '{\n  "failures": [\n    {\n      "fullTitle": "gather fails",\n      "x": 1\n    }\n  ],\n'
    '  "passes": [\n    {\n      "fullTitle": "gather works",\n      "x": 1\n    },\n'
    '    {\n      "fullTitle": "audit works",\n      "x": 1\n    }\n  ]\n}\n'
)
QUARTO = f"""[smoke] render /tmp/abc123.qmd ... {ESC}[32mok{ESC}[0m (1s)
[unit] yaml schema ... {ESC}[31mFAILED{ESC}[0m (2ms)
[smoke] render /tmp/xyz/doc.qmd ...
[unit] lua filters ... {ESC}[32mok{ESC}[0m
[smoke] summary 2 passed 1 failed (4 steps)
ERRORS
[unit] after the end ... {ESC}[32mok{ESC}[0m
"""

LOGS: list[tuple[str, str, str, str]] = [
    ("parse_log_redis", "redis__redis-13115", "13115", REDIS),
    ("parse_log_jq", "jqlang__jq-2919", "2919", JQ),
    ("parse_log_doctest", "nlohmann__json-4237", "4237", DOCTEST),
    ("parse_log_micropython_test", "micropython__micropython-15898", "15898", MICROPYTHON),
    ("parse_log_googletest", "fmtlib__fmt-3750", "3750", GOOGLETEST),
    ("parse_log_gotest", "caddyserver__caddy-6411", "6411", GOTEST),
    ("parse_log_cargo", "burntsushi__ripgrep-2576", "2576", CARGO),
    ("parse_log_maven", "google__gson-2024", "2024", MAVEN),
    ("parse_log_maven", "apache__druid-13704", "13704", MAVEN_LATE),
    ("parse_log_ant", "projectlombok__lombok-3312", "3312", ANT),
    ("parse_log_gradle_custom", "apache__lucene-12196", "12196", GRADLE),
    ("parse_log_phpunit", "laravel__framework-48636", "48636", PHPUNIT),
    ("parse_log_minitest", "x__y-1", "1", MINITEST),
    ("parse_log_cucumber", "x__y-1", "1", CUCUMBER),
    ("parse_log_ruby_unit", "fluent__fluentd-4030", "4030", RUBY_UNIT),
    ("parse_log_rspec_transformed_json", "rubocop__rubocop-13362", "13362", RSPEC),
    ("parse_log_jekyll", "jekyll__jekyll-9141", "9141", MINITEST),
    ("parse_log_jekyll", "jekyll__jekyll-8761", "8761", CUCUMBER),
    ("parse_log_jest", "babel__babel-15649", "15649", JEST),
    ("parse_log_jest_json", "x__y-1", "1", JEST_JSON),
    ("parse_log_vitest", "vuejs__core-11589", "11589", VITEST),
    ("parse_log_karma", "preactjs__preact-4152", "4152", KARMA),
    ("parse_log_tap", "mrdoob__three.js-27395", "27395", TAP),
    ("parse_log_react_pdf", "diegomura__react-pdf-1285", "2.0", JEST_FILES),
    ("parse_log_carbon", "carbon-design-system__carbon-1", "1", JEST_FILES),
    ("parse_log_calypso", "Automattic__wp-calypso-21648", "10.10.0", CALYPSO),
    ("parse_log_chart_js", "chartjs__Chart.js-7951", "2.9", CHART_JS),
    ("parse_log_marked", "markedjs__marked-1262", "0.3", MARKED),
    ("parse_log_p5js", "processing__p5.js-5771", "1.5", P5JS),
    ("parse_log_immutable_js", "immutable-js__immutable-js-2006", "2006", JEST),
    ("parse_log_immutable_js", "immutable-js__immutable-js-2005", "2005", JEST_JSON),
    ("parse_log_highlightjs", "highlightjs__highlight.js-1", "10.7", HIGHLIGHTJS),
    ("parse_log_prismjs", "PrismJS__prism-1", "1.29", PRISM),
    ("parse_log_eslint", "eslint__eslint-1", "8.0", ESLINT),
    ("parse_log_bpmn_js", "bpmn-io__bpmn-js-1", "1.0", BPMN),
    ("parse_log_openlayers", "openlayers__openlayers-1", "6.0", OPENLAYERS),
    ("parse_log_grommet", "grommet__grommet-1", "2.0", GROMMET),
    ("parse_log_next", "alibaba-fusion__next-1", "1.19", NEXT_KARMA),
    ("parse_log_next", "alibaba-fusion__next-2", "1.27", NEXT_CYPRESS),
    ("parse_log_lighthouse", "GoogleChrome__lighthouse-1", "9.5", LIGHTHOUSE_MOCHA),
    ("parse_log_lighthouse", "GoogleChrome__lighthouse-2", "3.0", JEST_FILES),
    ("parse_log_lighthouse", "GoogleChrome__lighthouse-3", "2.1", LIGHTHOUSE_JSON),
    ("parse_log_quarto_cli", "quarto-dev__quarto-cli-1", "1.3", QUARTO),
]
