#include "axibulk/timefmt.h"

#include <ctype.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Days from 1970-01-01 to year-month-day in the proleptic Gregorian calendar (H. Hinnant's
 * civil-from-days inverse), so no timegm/TZ state is involved. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)((int64_t)yoe + era * 400 + (*m <= 2));
}

static int days_in_month(int y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

/* 9e9 s is 9e18 ns, inside int64; no valid time is that far from another. */
static const double MAX_SPAN_S = 9e9;

axb_time_ns axb_time_from_seconds(double s)
{
    if (!(s > -MAX_SPAN_S)) s = -MAX_SPAN_S; /* NAN included: no llround of it */
    if (s > MAX_SPAN_S) s = MAX_SPAN_S;
    return (axb_time_ns)llround(s * 1e9);
}

/* The first and last nanosecond of the valid years. */
static axb_time_ns time_min(void)
{
    return days_from_civil(AXB_TIME_MIN_YEAR, 1, 1) * 86400 * AXB_NS_PER_S;
}

static axb_time_ns time_max(void)
{
    return days_from_civil(AXB_TIME_MAX_YEAR + 1, 1, 1) * 86400 * AXB_NS_PER_S - 1;
}

static axb_status check_range(axb_time_ns t, axb_error *err)
{
    AXB_CHECK(err, t >= time_min() && t <= time_max(), AXB_ERR_RANGE,
              "the time falls outside the years %d..%d that axibulk's times (int64 nanoseconds) hold",
              AXB_TIME_MIN_YEAR, AXB_TIME_MAX_YEAR);
    return AXB_OK;
}

axb_status axb_time_add_seconds(axb_time_ns t, double seconds, axb_time_ns *out, axb_error *err)
{
    AXB_CHECK(err, isfinite(seconds) && fabs(seconds) <= MAX_SPAN_S, AXB_ERR_RANGE,
              "an offset of %g s takes the time outside the years %d..%d that axibulk's times hold", seconds,
              AXB_TIME_MIN_YEAR, AXB_TIME_MAX_YEAR);
    AXB_TRY(check_range(t, err));
    /* both within ±9.2e18 but of opposite or equal sign: compare before adding */
    const axb_time_ns d = axb_time_from_seconds(seconds);
    AXB_CHECK(err, d >= 0 ? t <= time_max() - d : t >= time_min() - d, AXB_ERR_RANGE,
              "an offset of %g s takes the time outside the years %d..%d that axibulk's times hold", seconds,
              AXB_TIME_MIN_YEAR, AXB_TIME_MAX_YEAR);
    *out = t + d;
    return AXB_OK;
}

axb_status axb_time_from_fields(int year, int month, int day, int hour, int minute, double second, axb_time_ns *t,
                                axb_error *err)
{
    AXB_CHECK(err, year >= AXB_TIME_MIN_YEAR && year <= AXB_TIME_MAX_YEAR, AXB_ERR_RANGE,
              "year %d is outside %d..%d, the years axibulk's times (int64 nanoseconds) hold", year, AXB_TIME_MIN_YEAR,
              AXB_TIME_MAX_YEAR);
    AXB_CHECK(err, month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month), AXB_ERR_RANGE,
              "date %04d-%02d-%02d does not exist", year, month, day);
    AXB_CHECK(err,
              hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && isfinite(second) && second >= 0 && second < 61,
              AXB_ERR_RANGE, "time %02d:%02d:%g is out of range", hour, minute, second);
    int64_t days = days_from_civil(year, (unsigned)month, (unsigned)day);
    *t = (days * 86400 + hour * 3600 + minute * 60) * AXB_NS_PER_S + axb_time_from_seconds(second);
    return AXB_OK;
}

static bool digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i])) return false;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return true;
}

axb_status axb_time_parse(const char *s, axb_time_ns *t, axb_error *err)
{
    const char *p = s;
    int y, mo, d, h = 0, mi = 0, sec = 0;
    int64_t frac_ns = 0;
    bool ok = digits(&p, 4, &y) && *p++ == '-' && digits(&p, 2, &mo) && *p++ == '-' && digits(&p, 2, &d);
    if (ok && (*p == 'T' || *p == ' ') && isdigit((unsigned char)p[1])) {
        p++;
        ok = digits(&p, 2, &h) && *p++ == ':' && digits(&p, 2, &mi);
        if (ok && *p == ':') {
            p++;
            ok = digits(&p, 2, &sec);
            if (ok && *p == '.') {
                p++;
                int n = 0;
                int64_t scale = 100000000;
                while (isdigit((unsigned char)*p)) {
                    if (n++ < 9) {
                        frac_ns += (*p - '0') * scale;
                        scale /= 10;
                    }
                    p++;
                }
                ok = n > 0;
            }
        }
    }
    int64_t offset_s = 0;
    if (ok && *p == 'Z')
        p++;
    else if (ok && (*p == '+' || *p == '-')) {
        int sign = *p++ == '-' ? -1 : 1, oh = 0, om = 0;
        ok = digits(&p, 2, &oh);
        if (ok && *p == ':') p++;
        if (ok && isdigit((unsigned char)*p)) ok = digits(&p, 2, &om);
        /* real offsets lie within ±14 h; a failed field leaves oh/om unread */
        ok = ok && oh <= 23 && om <= 59;
        if (ok) offset_s = sign * (oh * 3600 + om * 60);
    }
    AXB_CHECK(err, ok && *p == '\0', AXB_ERR_FORMAT, "'%.60s' is not an ISO 8601 time", s);
    AXB_TRY(axb_time_from_fields(y, mo, d, h, mi, (double)sec, t, err));
    /* the offset may carry the last hours of the valid years beyond them */
    *t += frac_ns - offset_s * AXB_NS_PER_S;
    return check_range(*t, err);
}

static void split(axb_time_ns t, int *y, int *mo, int *d, int *h, int *mi, int *s, int64_t *ns)
{
    int64_t secs = t / AXB_NS_PER_S, rem = t % AXB_NS_PER_S;
    if (rem < 0) {
        rem += AXB_NS_PER_S;
        secs--;
    }
    int64_t days = secs / 86400, sod = secs % 86400;
    if (sod < 0) {
        sod += 86400;
        days--;
    }
    civil_from_days(days, y, mo, d);
    *h = (int)(sod / 3600);
    *mi = (int)(sod / 60 % 60);
    *s = (int)(sod % 60);
    *ns = rem;
}

void axb_time_format(axb_time_ns t, char *buf, size_t size)
{
    int y, mo, d, h, mi, s;
    int64_t ns;
    split(t, &y, &mo, &d, &h, &mi, &s, &ns);
    snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", y, mo, d, h, mi, s, (int)(ns / 1000));
}

void axb_time_format_seconds(axb_time_ns t, char *buf, size_t size)
{
    int y, mo, d, h, mi, s;
    int64_t ns;
    split(t, &y, &mo, &d, &h, &mi, &s, &ns);
    snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, s);
}

void axb_format_duration(double s, char *buf, size_t size)
{
    if (!isfinite(s) || s < 0) {
        snprintf(buf, size, "--");
        return;
    }
    const long t = (long)(s + 0.5);
    snprintf(buf, size, "%ldd %02ld:%02ld:%02ld", t / 86400, t / 3600 % 24, t / 60 % 60, t % 60);
}

double axb_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double axb_thread_cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
