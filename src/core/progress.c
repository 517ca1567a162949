#include "core/progress.h"

#include "axibulk/timefmt.h"

void axb_progress_start(axb_progress *p, FILE *out, const char *label, const char *unit, int64_t total)
{
    *p = (axb_progress){.out = out, .label = label, .unit = unit, .total = total, .interval = 5.0};
    p->t0 = p->last = axb_wall_seconds();
}

void axb_progress_update(axb_progress *p, int64_t done, double mb_read, double mb_written, bool last)
{
    if (!p->out) return;
    const double t = axb_wall_seconds();
    if (!(t - p->last >= p->interval || (last && p->printed))) return;
    const double el = t - p->t0 > 1e-9 ? t - p->t0 : 1e-9;
    const double rate = (double)done / el;
    char eta[32] = "-";
    if (rate > 0) axb_format_duration((double)(p->total - done) / rate, eta, sizeof eta);
    fprintf(p->out, "%s: %lld/%lld %s (%.1f %%), %.1f %s/s", p->label, (long long)done, (long long)p->total, p->unit,
            100.0 * (double)done / (double)(p->total > 0 ? p->total : 1), rate, p->rate_unit ? p->rate_unit : p->unit);
    if (p->rate2_unit) fprintf(p->out, ", %.3g %s/s", rate * p->rate2_per_unit, p->rate2_unit);
    if (mb_read >= 0) fprintf(p->out, ", read %.1f MB/s", mb_read / el);
    if (mb_written >= 0) fprintf(p->out, ", written %.1f MB/s", mb_written / el);
    fprintf(p->out, ", ETA %s\n", eta);
    fflush(p->out);
    p->last = t;
    p->printed = true;
}
