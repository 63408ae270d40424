/* recommend — the best known configuration for this host's hardware from
 * stored (local and merged) runs: the runs of this host and its hardware
 * classes grouped by configuration and work, the defaults picked among
 * them, the candidates judged against the defaults together (Holm, or by
 * host with several hosts), the winner's evidence and side effects.
 * `sluice recommend` prints it; the Overview shows its verdict. */
#ifndef SLUICE_RECOMMEND_H
#define SLUICE_RECOMMEND_H

#include "core/device.h"
#include "search/evidence.h"
#include "search/search.h"

/* The runs of one configuration and work. */
struct recommend_group {
    const char *config;       /* borrowed from the evidence */
    struct eval_metrics *m;
    const char **host;        /* of each run, borrowed from the evidence */
    int n, from_host, from_class;
    int changes;              /* from catalogue defaults */
    int work;                 /* the workload its runs ran (evidence.work) */
    ptrdiff_t first;          /* its first run's place in the evidence */
    double mean_score;
};

enum recommend_outcome {
    REC_NO_DATA,     /* no stored run of this host or its classes (of the workload) */
    REC_OTHER_WORK,  /* every other configuration ran other work than the defaults: not judged */
    REC_NOISE,       /* judged: nothing beats the defaults beyond the noise */
    REC_WIN,         /* judged: win names the recommended candidate */
};

/* The match of the winner's runs: index into recommend_match_name. */
enum recommend_match { REC_MATCH_OTHER, REC_MATCH_CLASS, REC_MATCH_HOST };

struct recommendation {
    /* asked: set before recommend_gather (workload "": the most measured one) */
    char workload[32], objective[160];
    struct objective o;
    /* gathered */
    struct host_info h;
    struct evidence_scope scope;        /* which runs count: compare's filter too */
    struct device *devs;                /* this host's disks (for the shipped-profile fallback) */
    int nd;
    struct evidence ev;
    struct recommend_group *g;
    int ng, base;
    /* judged */
    enum recommend_outcome outcome;
    int cand[SEARCH_MAX_LEADERS], nc;   /* groups judged against base */
    struct leader l[SEARCH_MAX_LEADERS];
    double *sc[SEARCH_MAX_LEADERS], *bs;
    int nsc[SEARCH_MAX_LEADERS], nbs;
    int win;                            /* index into l[], -1: none */
    int other_work;                     /* configurations left out: they ran other work than the defaults */
    char other_diff[256];               /* how the first of them differs */
    bool by_host;                       /* more than one host behind the judged groups */
    struct host_attribution ha[SEARCH_MAX_LEADERS], hbase;
    char host_decision[SEARCH_MAX_LEADERS][256];
    struct eval_metrics base_mean;      /* the defaults' mean metrics */
    char basev[64];                     /* their objective value, as text ("412.0 MB/s") */
    char diff[2048];                    /* the winner's knobs that differ from the defaults ("" none) */
    enum recommend_match match;
};

/* Prepare r for the objective text and workload ("" or NULL: the most
 * measured one). -1 with e when the objective does not parse. */
int recommend_init(struct recommendation *r, const char *workload, const char *objective, sl_err *e);
/* This host, its disks and evidence scope, the successful runs of st in
 * that scope (of the workload), grouped by configuration and work. -1
 * with e; recommend_free frees r either way. */
int recommend_gather(struct recommendation *r, store *st, sl_err *e);
/* The verdict on the gathered runs (also left in r->outcome). */
enum recommend_outcome recommend_judge(struct recommendation *r);
/* What the recommended configuration's runs cost beside the defaults'
 * (rows of the collateral metrics both measured; none without a winner). */
void recommend_winner_effects(const struct recommendation *r, struct side_effects *fx);
/* "this host", "same hardware class", "other hardware". */
const char *recommend_match_name(enum recommend_match m);
/* A virtual machine or virtio disks: what the guest sees of its disks is
 * not the hardware; the note saying so in buf (NULL on bare metal with no
 * virtual disk). */
const char *recommend_virtual_note(const struct host_info *h, const struct device *devs, int nd, char *buf, size_t n);
void recommend_free(struct recommendation *r);

#endif
