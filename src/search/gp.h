/* gp — Gaussian-process regression for Bayesian optimisation: a product of
 * a Matérn 5/2 kernel over numeric coordinates (ARD length-scales) and an
 * exchangeable categorical kernel rho^(number of differing categories);
 * heteroscedastic noise sn2/m_i for points averaged over m_i replicates;
 * hyperparameters by maximising the log marginal likelihood (GSL
 * Nelder-Mead); GSL Cholesky for the algebra; expected improvement. */
#ifndef SLUICE_GP_H
#define SLUICE_GP_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#define GP_MAX_DIMS 24

struct gp_hyper {
    double ls[GP_MAX_DIMS];   /* length-scale per numeric coordinate */
    double sf2;               /* signal variance (standardised units) */
    double sn2;               /* noise variance of one observation */
    double rho;               /* categorical correlation in (0,1) */
};

struct gp {
    int n, d, c;              /* points, numeric coordinates, categorical ones */
    double *x;                /* n*d */
    int *cat;                 /* n*c, -1 for an inactive category */
    double *y;                /* standardised targets */
    double *m;                /* replicates behind each target */
    double ymean, ysd;
    int standardise;
    struct gp_hyper h;
    gsl_matrix *L;            /* Cholesky factor of K + noise */
    gsl_vector *alpha;        /* (K + noise)^-1 y */
};

/* Copy the data in. With standardise, y is centred and scaled (sd 1); else
 * used as is (tests compare against closed forms). Free with gp_free. */
void gp_init(struct gp *g, int n, int d, int c, const double *x, const int *cat, const double *y, const double *m,
             int standardise);
void gp_free(struct gp *g);
/* Factorise with hyperparameters h; *lml (if non-NULL) gets the log
 * marginal likelihood. -1 when the matrix is not positive definite. */
int gp_fit(struct gp *g, const struct gp_hyper *h, double *lml);
/* Maximise the marginal likelihood from a few starts (length-scales in
 * [0.05, 10], sn2 >= 1e-4) and leave the best fit in place. -1 if no fit. */
int gp_optimise(struct gp *g);
/* Posterior mean and latent (noise-free) variance at a point, in the units
 * of the y given to gp_init. */
void gp_predict(const struct gp *g, const double *x, const int *cat, double *mu, double *var);
/* Expected improvement of a normal(mu, sd^2) over `best` + xi:
 * (mu - best - xi) Phi(z) + sd phi(z), z = (mu - best - xi)/sd. */
double gp_ei(double mu, double sd, double best, double xi);

#endif
