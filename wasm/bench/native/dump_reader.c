#include "dump_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LT_DUMP_HEADER_BYTES 21u
#define LT_DUMP_MAX_RECORD (16u * 1024u * 1024u)

static UINT64 read_u64le(const BYTE* p)
{
	UINT64 v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static BOOL read_file(const char* path, LtDump* dump, size_t* size, char* error, size_t errorSize)
{
	FILE* file = fopen(path, "rb");
	if (!file)
	{
		(void)snprintf(error, errorSize, "cannot open %s", path);
		return FALSE;
	}
	BOOL ok = (fseek(file, 0, SEEK_END) == 0);
	const long end = ok ? ftell(file) : -1;
	ok = ok && (end > 0) && (fseek(file, 0, SEEK_SET) == 0);
	dump->bytes = ok ? malloc((size_t)end) : NULL;
	ok = ok && dump->bytes && (fread(dump->bytes, 1, (size_t)end, file) == (size_t)end);
	(void)fclose(file);
	if (!ok)
	{
		(void)snprintf(error, errorSize, "cannot read %s", path);
		return FALSE;
	}
	*size = (size_t)end;
	return TRUE;
}

BOOL lt_dump_read(const char* path, LtDump* dump, char* error, size_t errorSize)
{
	memset(dump, 0, sizeof(*dump));
	size_t size = 0;
	if (!read_file(path, dump, &size, error, errorSize))
	{
		lt_dump_free(dump);
		return FALSE;
	}
	size_t capacity = 0;
	for (size_t offset = 0; offset < size;)
	{
		if (size - offset < LT_DUMP_HEADER_BYTES)
		{
			(void)snprintf(error, errorSize, "record %zu: header cut at byte %zu", dump->count, offset);
			lt_dump_free(dump);
			return FALSE;
		}
		const BYTE* header = dump->bytes + offset;
		const BYTE direction = header[8];
		const UINT64 length = read_u64le(header + 13);
		if ((direction > 1) || (length == 0) || (length > LT_DUMP_MAX_RECORD) ||
		    (length > size - offset - LT_DUMP_HEADER_BYTES))
		{
			(void)snprintf(error, errorSize, "record %zu at byte %zu: direction %u, length %llu",
			               dump->count, offset, direction, (unsigned long long)length);
			lt_dump_free(dump);
			return FALSE;
		}
		if (dump->count == capacity)
		{
			capacity = capacity ? 2 * capacity : 1024;
			LtDumpRecord* grown = realloc(dump->records, capacity * sizeof(*grown));
			if (!grown)
			{
				(void)snprintf(error, errorSize, "out of memory");
				lt_dump_free(dump);
				return FALSE;
			}
			dump->records = grown;
		}
		dump->records[dump->count++] =
		    (LtDumpRecord){ direction == 1, header + LT_DUMP_HEADER_BYTES, (size_t)length };
		offset += LT_DUMP_HEADER_BYTES + (size_t)length;
	}
	return TRUE;
}

void lt_dump_free(LtDump* dump)
{
	free(dump->records);
	free(dump->bytes);
	memset(dump, 0, sizeof(*dump));
}
