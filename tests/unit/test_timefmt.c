/* UTC time parsing and formatting against known epoch values (computed independently with
 * `date -u -d ... +%s`). */
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
    const char *bad[] = {"2015-02-29T00:00:00",
                         "2015-13-01",
                         "2015-01-01T24:00:00",
                         "yesterday",
                         "2015-01-01T00:00:00.",
                         "2015-01-01T00:00:00Zjunk",
                         ""};
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
    return check_summary(&T);
}
