/* A FreeRDP /dump:record file (the shared recordings, ../shared/recordings/ beside the repository),
 * read whole into memory. Layout per record, little-endian, as in
 * lab/src/recording/recordedPdu.ts: u64 tick_ms | u8 direction (1 = client to
 * server) | u32 crc | u64 length | length bytes (one TPKT or fast-path PDU). */
#ifndef LANTERNA_DUMP_READER_H
#define LANTERNA_DUMP_READER_H

#include <stddef.h>

#include <winpr/wtypes.h>

typedef struct
{
	BOOL fromClient;
	const BYTE* data; /* points into LtDump.bytes */
	size_t length;
} LtDumpRecord;

typedef struct
{
	BYTE* bytes;
	LtDumpRecord* records;
	size_t count;
} LtDump;

/* FALSE with a message in error when the file cannot be read or is malformed
 * (truncated, a zero or > 16 MiB length, an unknown direction). The checksum is
 * not checked: FreeRDP's depends only on the length (see the lab's reader). */
BOOL lt_dump_read(const char* path, LtDump* dump, char* error, size_t errorSize);
void lt_dump_free(LtDump* dump);

#endif
