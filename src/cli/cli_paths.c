/* Outputs checked against the path rules before a command touches the file system. */
#include "cli/cli_paths.h"

#include "core/agree.h"
#include "core/paths.h"

static axb_status check(const axb_cli_path *outs, int nout, const axb_cli_path *ins, int nin, axb_error *err)
{
    for (int i = 0; i < nout; i++)
        if (outs[i].path && outs[i].suffix)
            AXB_TRY(axb_path_check_length(outs[i].what, outs[i].path, outs[i].suffix, err));
    for (int i = 0; i < nout; i++)
        for (int k = 0; k < nin; k++)
            AXB_TRY(axb_path_check_apart(outs[i].what, outs[i].path, ins[k].what, ins[k].path, err));
    return AXB_OK;
}

axb_status axb_cli_check_paths(MPI_Comm comm, axb_status st, const axb_cli_path *outs, int nout,
                               const axb_cli_path *ins, int nin, axb_error *err)
{
    return axb_agree(comm, st ? st : check(outs, nout, ins, nin, err), err);
}
