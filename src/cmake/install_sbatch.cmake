# Run by `cmake --install` after the job scripts are copied: writes the installed axibulk's path
# into each script's empty AXB_INSTALLED= line, so PREFIX/share/axibulk/slurm/*.sbatch run the
# binary they were installed with. The prefix is the one given at install time (--prefix or
# CMAKE_INSTALL_PREFIX); DESTDIR is left out of the recorded path, as a package installs without it.
# Needs AXB_SBATCH_DIR and AXB_BIN_DIR (relative to the prefix, or absolute) set by the caller.
foreach(v AXB_SBATCH_DIR AXB_BIN_DIR)
  if(NOT IS_ABSOLUTE "${${v}}")
    set(${v} "${CMAKE_INSTALL_PREFIX}/${${v}}")
  endif()
endforeach()
file(GLOB scripts "$ENV{DESTDIR}${AXB_SBATCH_DIR}/*.sbatch")
foreach(f IN LISTS scripts)
  file(READ "${f}" text)
  string(REPLACE "\nAXB_INSTALLED=\n" "\nAXB_INSTALLED='${AXB_BIN_DIR}/axibulk'\n" text "${text}")
  file(WRITE "${f}" "${text}")
endforeach()
