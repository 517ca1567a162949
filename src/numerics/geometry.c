#include "axibulk/geometry.h"

#include <math.h>

static const double DEG = 3.14159265358979323846 / 180.0;

void axb_geo_cartesian(double lat_deg, double lon_deg, double r, double xyz[3])
{
    const double lat = lat_deg * DEG, lon = lon_deg * DEG;
    xyz[0] = r * cos(lat) * cos(lon);
    xyz[1] = r * cos(lat) * sin(lon);
    xyz[2] = r * sin(lat);
}

void axb_geo_rotate_frame(const double xyz[3], double lon_b_deg, double colat_b_deg, double *s, double *z, double *phi)
{
    const double l = lon_b_deg * DEG, t = colat_b_deg * DEG;
    /* about z by −λ, then about y by −θ */
    const double x1 = xyz[0] * cos(l) + xyz[1] * sin(l);
    const double y1 = -xyz[0] * sin(l) + xyz[1] * cos(l);
    const double z1 = xyz[2];
    const double x2 = x1 * cos(t) - z1 * sin(t);
    const double y2 = y1;
    const double z2 = x1 * sin(t) + z1 * cos(t);
    *s = sqrt(x2 * x2 + y2 * y2);
    *z = z2;
    double p = atan2(y2, x2);
    if (p < 0) p += 2 * 3.14159265358979323846;
    *phi = p;
}

double axb_geo_distance_deg(double lat1, double lon1, double lat2, double lon2)
{
    const double a = lat1 * DEG, b = lat2 * DEG, dl = (lon2 - lon1) * DEG;
    const double n1 = cos(b) * sin(dl);
    const double n2 = cos(a) * sin(b) - sin(a) * cos(b) * cos(dl);
    return atan2(sqrt(n1 * n1 + n2 * n2), sin(a) * sin(b) + cos(a) * cos(b) * cos(dl)) / DEG;
}

void axb_geo_local_basis(double lon_deg, double colat_deg, double R[3][3])
{
    const double l = lon_deg * DEG, t = colat_deg * DEG;
    R[0][0] = cos(t) * cos(l);
    R[0][1] = -sin(l);
    R[0][2] = sin(t) * cos(l);
    R[1][0] = cos(t) * sin(l);
    R[1][1] = cos(l);
    R[1][2] = sin(t) * sin(l);
    R[2][0] = -sin(t);
    R[2][1] = 0.0;
    R[2][2] = cos(t);
}

/* Voigt order here: [a11, a22, a33, a23, a13, a12] for axes (θ, φ, r) resp. (s, φ, z). */
static void voigt_to_matrix(const double v[6], double A[3][3])
{
    A[0][0] = v[0];
    A[1][1] = v[1];
    A[2][2] = v[2];
    A[1][2] = A[2][1] = v[3];
    A[0][2] = A[2][0] = v[4];
    A[0][1] = A[1][0] = v[5];
}

void axb_geo_tensor_to_db_frame(const double m[6], double src_lon, double src_colat, double rec_lon, double rec_colat,
                                double phi, double voigt[6])
{
    /* tensor_voigt = [m_tt, m_pp, m_rr, m_rp, m_rt, m_tp] in axes 1 = θ, 2 = φ, 3 = r */
    const double tv[6] = {m[1], m[2], m[0], m[4], m[3], m[5]};
    double A[3][3], Rs[3][3], Rr[3][3], ME[3][3] = {{0}};
    voigt_to_matrix(tv, A);
    axb_geo_local_basis(src_lon, src_colat, Rs);
    axb_geo_local_basis(rec_lon, rec_colat, Rr);
    /* M_E = Rs A Rsᵀ */
    double T[3][3] = {{0}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) T[i][j] += Rs[i][k] * A[k][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) ME[i][j] += T[i][k] * Rs[j][k];
    /* M_R = Rrᵀ M_E Rr in extended precision (Instaseis uses float128 here), rounded back */
    long double T2[3][3] = {{0}}, MR[3][3] = {{0}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) T2[i][j] += (long double)Rr[k][i] * (long double)ME[k][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) MR[i][j] += T2[i][k] * (long double)Rr[k][j];
    double M[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) M[i][j] = (double)MR[i][j];
    /* M_C = Q M_R Qᵀ, Q the rotation by φ about z */
    const double c = cos(phi), s = sin(phi);
    const double Q[3][3] = {{c, s, 0}, {-s, c, 0}, {0, 0, 1}};
    double T3[3][3] = {{0}}, MC[3][3] = {{0}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) T3[i][j] += Q[i][k] * M[k][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) MC[i][j] += T3[i][k] * Q[j][k];
    voigt[0] = MC[0][0];
    voigt[1] = MC[1][1];
    voigt[2] = MC[2][2];
    voigt[3] = MC[1][2];
    voigt[4] = MC[0][2];
    voigt[5] = MC[0][1];
}

void axb_geo_force_to_db_frame(const double f[3], double src_lon, double src_colat, double rec_lon, double rec_colat,
                               double phi, double fc[3])
{
    const double ftpr[3] = {f[1], f[2], f[0]};
    double Rs[3][3], Rr[3][3], fe[3] = {0}, fr[3] = {0};
    axb_geo_local_basis(src_lon, src_colat, Rs);
    axb_geo_local_basis(rec_lon, rec_colat, Rr);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) fe[i] += Rs[i][k] * ftpr[k];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) fr[i] += Rr[k][i] * fe[k];
    const double c = cos(phi), s = sin(phi);
    fc[0] = c * fr[0] + s * fr[1];
    fc[1] = -s * fr[0] + c * fr[1];
    fc[2] = fr[2];
}

void axb_geo_forward_nez(double src_lon, double src_colat, double rec_lon, double rec_colat, double phi, double P[3][3])
{
    double Rs[3][3], Rr[3][3], T[3][3] = {{0}}, U[3][3] = {{0}};
    axb_geo_local_basis(src_lon, src_colat, Rs);
    axb_geo_local_basis(rec_lon, rec_colat, Rr);
    const double c = cos(phi), s = sin(phi);
    const double C[3][3] = {{c, -s, 0}, {s, c, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) T[i][j] += Rs[i][k] * C[k][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) U[i][j] += Rr[k][i] * T[k][j];
    for (int j = 0; j < 3; j++) {
        P[0][j] = -U[0][j];
        P[1][j] = U[1][j];
        P[2][j] = U[2][j];
    }
}
