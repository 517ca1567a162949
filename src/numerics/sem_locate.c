/* The element search (reference notes §2.4). */
#include "numerics/sem_locate.h"

#include "axibulk/sem.h"

static const double TOLERANCES[] = {1e-3, 1e-2, 5e-2, 8e-2};

bool axb_sem_locate(const axb_mesh *m, const axb_kdtree *tree, double s, double z, int ncand, int64_t *elem, double *xi,
                    double *eta)
{
    int64_t cand[64];
    /* The search below tries the candidates nearest first, at the tightest tolerance first, so
     * when the nearest element holds the point it is the answer: a one-point search finds it
     * (ties broken by index, as in the longer search) at a third of the cost, and the longer
     * search runs only for points near element edges. */
    if (axb_kdtree_nearest(tree, s, z, 1, cand, NULL) == 1) {
        axb_elem_shape g;
        axb_sem_shape(m, cand[0], &g);
        if (axb_sem_inside(&g, s, z, TOLERANCES[0], xi, eta)) {
            *elem = cand[0];
            return true;
        }
    }
    const int nc = axb_kdtree_nearest(tree, s, z, ncand < 64 ? ncand : 64, cand, NULL);
    for (size_t t = 0; t < sizeof TOLERANCES / sizeof TOLERANCES[0]; t++)
        for (int k = 0; k < nc; k++) {
            axb_elem_shape g;
            axb_sem_shape(m, cand[k], &g);
            if (axb_sem_inside(&g, s, z, TOLERANCES[t], xi, eta)) {
                *elem = cand[k];
                return true;
            }
        }
    return false;
}
