/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* librawfrag: read, check and decode PERF_SAMPLE_RAW payloads of perf.data files. */
#ifndef __RAWFRAG_RAWFRAG_H
#define __RAWFRAG_RAWFRAG_H

#include <rawfrag/core.h>
#include <rawfrag/file.h>
#include <rawfrag/sample.h>
#include <rawfrag/emit.h>
#include <rawfrag/visit.h>
#include <rawfrag/decoder.h>
#include <rawfrag/check.h>
#include <rawfrag/line.h>
#include <rawfrag/tool.h>
#include <rawfrag/writer.h>
#include <rawfrag/machine.h>
#include <rawfrag/where.h>
#include <rawfrag/sink.h>

#endif
