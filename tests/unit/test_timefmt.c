/* UTC time parsing and formatting against known epoch values (computed independently with
 * `date -u -d ... +%s`), and the clocks. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "axibulk/timefmt.h"
#include "check.h"

int main(void)
{
    check_ctx T = {0, 0, 0};
    axb_time_ns t;
    axb_error err = AXB_ERROR_INIT;
    CHECK(&T, axb_time_parse("1970-01-01T00:00:00Z", &t, &err) == AXB_OK && t == 0);
    CHECK(&T, axb_time_parse("2014-01-05T00:00:00", &t, &err) == AXB_OK && t == INT64_C(1388880000) * AXB_NS_PER_S);
    CHECK(&T, axb_time_parse("2015-01-01T01:01", &t, &err) == AXB_OK && t == INT64_C(1420074060) * AXB_NS_PER_S);
    CHECK(&T,
          axb_time_parse("2011-03-11 05:46:23.123456789", &t, &err) == AXB_OK &&
              t == INT64_C(1299822383) * AXB_NS_PER_S + 123456789);
    CHECK(&T,
          axb_time_parse("2000-02-29T12:00:00+02:00", &t, &err) == AXB_OK && t == INT64_C(951818400) * AXB_NS_PER_S);
    CHECK(&T, axb_time_parse("1969-12-31T23:59:59.5Z", &t, &err) == AXB_OK && t == -AXB_NS_PER_S / 2);
    CHECK(&T, axb_time_parse("2016-07-01", &t, &err) == AXB_OK && t == INT64_C(1467331200) * AXB_NS_PER_S);
    const char *bad[] = {"2015-02-29T00:00:00", "2015-13-01", "2015-01-01T24:00:00", "yesterday",
                         "2015-01-01T00:00:00.", "2015-01-01T00:00:00Zjunk",
                         /* found by fuzz_time: a broken offset was used unread (UB) */
                         "2011-08-23 17:51:04.123456789+8-230", "2011-08-23T17:51:04+99:00",
                         "2011-08-23T17:51:04+05:60", ""};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CHECK_MSG(&T, axb_time_parse(bad[k], &t, &err) != AXB_OK, "accepted '%s'", bad[k]);
    char buf[40];
    axb_time_format(INT64_C(1299822383) * AXB_NS_PER_S + 123456789, buf, sizeof buf);
    CHECK_STR(&T, buf, "2011-03-11T05:46:23.123456Z");
    axb_time_format(-AXB_NS_PER_S / 2, buf, sizeof buf);
    CHECK_STR(&T, buf, "1969-12-31T23:59:59.500000Z");
    axb_time_format_seconds(INT64_C(1388880000) * AXB_NS_PER_S + 999999999, buf, sizeof buf);
    CHECK_STR(&T, buf, "2014-01-05T00:00:00");
    CHECK(&T,
          axb_time_from_fields(2011, 3, 11, 5, 46, 23.5, &t, &err) == AXB_OK &&
              t == INT64_C(1299822383) * AXB_NS_PER_S + AXB_NS_PER_S / 2);
    CHECK(&T, axb_time_from_seconds(-1.25) == -1250000000);

    /* Issue #19: int64 ns hold 1677-09-21..2262-04-11; years outside 1678..2261 used to wrap
     * (2500-01-01 came back as 1915). They are refused, and the edges of the range are exact:
     * 1678-01-01 is -9214560000 s and 2261-12-31T23:59:59 is 9214646399 s (Python's datetime). */
    CHECK(&T, axb_time_parse("1678-01-01", &t, &err) == AXB_OK && t == INT64_C(-9214560000) * AXB_NS_PER_S);
    CHECK(&T,
          axb_time_parse("2261-12-31T23:59:59.999999999Z", &t, &err) == AXB_OK &&
              t == INT64_C(9214646399) * AXB_NS_PER_S + 999999999);
    static const struct {
        const char *s, *msg;
    } range[] = {
        {"2500-01-01", "year 2500 is outside 1678..2261, the years axibulk's times (int64 nanoseconds) hold"},
        {"1500-06-01T00:00:00Z", "year 1500 is outside 1678..2261"},
        {"0001-01-01", "year 1 is outside 1678..2261"},
        {"9999-12-31T23:59:59", "year 9999 is outside 1678..2261"},
        {"2261-12-31T23:00-02:00", "the time falls outside the years 1678..2261"},
        {"1678-01-01T00:00+00:01", "the time falls outside the years 1678..2261"},
    };
    for (size_t k = 0; k < sizeof range / sizeof *range; k++) {
        axb_error_clear(&err);
        CHECK_MSG(&T, axb_time_parse(range[k].s, &t, &err) == AXB_ERR_RANGE, "accepted '%s'", range[k].s);
        CHECK_MSG(&T, strstr(err.msg, range[k].msg) != NULL, "'%s': message '%s'", range[k].s, err.msg);
    }
    CHECK(&T, axb_time_from_fields(1000, 1, 1, 0, 0, 0, &t, &err) == AXB_ERR_RANGE);
    CHECK(&T, axb_time_from_fields(3000, 1, 1, 0, 0, 0, &t, &err) == AXB_ERR_RANGE);
    /* offsets: checked before adding, whatever their size */
    const axb_time_ns t2000 = INT64_C(946684800) * AXB_NS_PER_S;
    CHECK(&T, axb_time_add_seconds(t2000, -1.5, &t, &err) == AXB_OK && t == t2000 - 3 * AXB_NS_PER_S / 2);
    const double bad_offsets[] = {9e9, -1e10, 1e300, NAN, INFINITY, 8.3e9};
    for (size_t k = 0; k < sizeof bad_offsets / sizeof *bad_offsets; k++) {
        axb_error_clear(&err);
        CHECK_MSG(&T, axb_time_add_seconds(t2000, bad_offsets[k], &t, &err) == AXB_ERR_RANGE, "accepted %g",
                  bad_offsets[k]);
        CHECK_CONTAINS(&T, err.msg, "outside the years 1678..2261");
    }
    CHECK(&T, axb_time_add_seconds(t2000, 7.2e9, &t, &err) == AXB_OK); /* 2228 */
    CHECK(&T, axb_time_from_seconds(NAN) == -INT64_C(9000000000) * AXB_NS_PER_S);
    CHECK(&T, axb_time_from_seconds(1e300) == INT64_C(9000000000) * AXB_NS_PER_S);
    /* the thread CPU clock (per-stage splits): still while the thread sleeps, moving while it works */
    const double c0 = axb_thread_cpu_seconds();
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    const double slept = axb_thread_cpu_seconds() - c0;
    CHECK_MSG(&T, slept >= 0 && slept < 0.05, "100 ms asleep counted %.3f s of CPU", slept);
    volatile double sink = 0;
    const double w0 = axb_wall_seconds(), c1 = axb_thread_cpu_seconds();
    while (axb_thread_cpu_seconds() - c1 < 0.02 && axb_wall_seconds() - w0 < 10)
        for (int k = 0; k < 10000; k++) sink += k;
    CHECK_MSG(&T, axb_thread_cpu_seconds() - c1 >= 0.02, "20 ms of work not seen in 10 s (sink %g)", sink);
    return check_summary(&T);
}
