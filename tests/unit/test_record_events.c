// SPDX-License-Identifier: GPL-2.0
/*
 * -e parsing of perf rawfrag record (tools/perf-rawfrag/record/events.c, compiled in):
 * PMU format bit ranges, term lists, modifiers, comma splitting and errors.
 * Tracepoints need tracefs and are covered by tests/shell/t40-record.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "../../tools/perf-rawfrag/record/events.c"
#include "../../tools/perf-rawfrag/tracefs.c"

static void test_format_ranges(void **state)
{
	struct perf_event_attr a = { 0 };

	/* the value's low bits fill the ranges in order */
	assert_int_equal(apply_format(&a, "config:0-7,32-35", 0xabc), 0);
	assert_int_equal(a.config, 0xbcULL | (0xaULL << 32));
	assert_int_equal(apply_format(&a, "config1:5", 1), 0);
	assert_int_equal(a.config1, 1ULL << 5);
	assert_int_equal(apply_format(&a, "config2:60-63", 0xff), 0);
	assert_int_equal(a.config2, 0xfULL << 60);
	/* a later term clears the bits it owns */
	assert_int_equal(apply_format(&a, "config:0-7", 0), 0);
	assert_int_equal(a.config, 0xaULL << 32);
}

static void test_format_errors(void **state)
{
	struct perf_event_attr a = { 0 };

	assert_int_equal(apply_format(&a, "config3:0", 1), -EINVAL);
	assert_int_equal(apply_format(&a, "config:64", 1), -EINVAL);
	assert_int_equal(apply_format(&a, "config:7-3", 1), -EINVAL);
	assert_int_equal(apply_format(&a, "config:x", 1), -EINVAL);
	assert_int_equal(apply_format(&a, "config:1;", 1), -EINVAL);
}

static void test_named_and_modifiers(void **state)
{
	struct rf_event *evs = NULL;
	char msg[256] = "";
	int nr = 0;

	assert_int_equal(events__parse("cpu-clock,page-faults:u,cycles:kp", &evs, &nr, msg,
				       sizeof(msg)), 0);
	assert_int_equal(nr, 3);
	assert_string_equal(evs[0].name, "cpu-clock");
	assert_int_equal(evs[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(evs[0].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_string_equal(evs[1].name, "page-faults:u");
	assert_int_equal(evs[1].attr.exclude_kernel, 1);
	assert_int_equal(evs[1].attr.exclude_user, 0);
	assert_int_equal(evs[2].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(evs[2].attr.exclude_user, 1);
	assert_int_equal(evs[2].attr.precise_ip, 1);
	assert_null(evs[0].tp);
	events__free(evs, nr);
}

static void test_pmu_terms(void **state)
{
	struct rf_event *evs = NULL;
	char msg[256] = "";
	int nr = 0;

	/* the software PMU exists on every Linux; commas inside /.../ are terms */
	assert_int_equal(events__parse("software/config=3,period=7/,cs", &evs, &nr, msg,
				       sizeof(msg)), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(evs[0].name, "software/config=3,period=7/");
	assert_int_equal(evs[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(evs[0].attr.config, 3);
	assert_int_equal(evs[0].attr.sample_period, 7);
	assert_string_equal(evs[1].name, "cs");
	events__free(evs, nr);
}

static void test_errors(void **state)
{
	struct rf_event *evs = NULL;
	char msg[256] = "";
	int nr = 0;

	assert_int_equal(events__parse("ibs_nosuch//", &evs, &nr, msg, sizeof(msg)), -ENODEV);
	assert_string_equal(msg, "PMU ibs_nosuch is not present on this machine");
	assert_int_equal(events__parse("software/nosuchterm=1/", &evs, &nr, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "PMU software has no term or event 'nosuchterm'");
	assert_int_equal(events__parse("software/config=zz/", &evs, &nr, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(events__parse("software/config=1", &evs, &nr, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(events__parse("nosuch", &evs, &nr, msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "unknown event 'nosuch'");
	assert_int_equal(events__parse("cs,,cs", &evs, &nr, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(events__parse("cs:q", &evs, &nr, msg, sizeof(msg)), -EINVAL);
	/* what parsed before the error is the caller's to free */
	events__free(evs, nr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_ranges),
		cmocka_unit_test(test_format_errors),
		cmocka_unit_test(test_named_and_modifiers),
		cmocka_unit_test(test_pmu_terms),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
