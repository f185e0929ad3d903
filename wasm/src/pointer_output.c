#include "pointer_output.h"

#include <stdlib.h>
#include <string.h>

#include <freerdp/codec/color.h>
#include <freerdp/gdi/gdi.h>
#include <freerdp/graphics.h>

#include "js_events.h"

typedef struct
{
	rdpPointer pointer; /* first: FreeRDP allocates Pointer_Prototype.size bytes */
	BYTE* rgba;         /* decoded once in New, posted (copied) on each Set */
} LtPointer;

static BOOL pointer_new(rdpContext* context, rdpPointer* pointer)
{
	LtPointer* p = (LtPointer*)pointer;
	const size_t size = (size_t)pointer->width * pointer->height * 4;
	p->rgba = NULL;
	if (size == 0)
		return TRUE;
	p->rgba = malloc(size);
	if (!p->rgba)
		return FALSE;
	if (!freerdp_image_copy_from_pointer_data(p->rgba, PIXEL_FORMAT_RGBA32, 0, 0, 0,
	                                          pointer->width, pointer->height,
	                                          pointer->xorMaskData, pointer->lengthXorMask,
	                                          pointer->andMaskData, pointer->lengthAndMask,
	                                          pointer->xorBpp, &context->gdi->palette))
	{
		free(p->rgba);
		p->rgba = NULL;
		return FALSE;
	}
	return TRUE;
}

static void pointer_free(WINPR_ATTR_UNUSED rdpContext* context, rdpPointer* pointer)
{
	LtPointer* p = (LtPointer*)pointer;
	free(p->rgba);
	p->rgba = NULL;
}

static BOOL pointer_set(rdpContext* context, rdpPointer* pointer)
{
	LtContext* lt = (LtContext*)context;
	LtPointer* p = (LtPointer*)pointer;
	if (!p->rgba)
	{
		lt_post_event(lt->id, LT_EVENT_POINTER_HIDE, 0, 0, 0, 0);
		return TRUE;
	}
	const size_t size = (size_t)pointer->width * pointer->height * 4;
	int32_t* record = malloc(LT_POINTER_HEADER_WORDS * sizeof(int32_t) + size);
	if (!record)
		return FALSE;
	record[0] = (int32_t)pointer->width;
	record[1] = (int32_t)pointer->height;
	record[2] = (int32_t)pointer->xPos;
	record[3] = (int32_t)pointer->yPos;
	memcpy(&record[LT_POINTER_HEADER_WORDS], p->rgba, size);
	lt_post_event(lt->id, LT_EVENT_POINTER_SET, (intptr_t)record, 0, 0, 0);
	return TRUE;
}

static BOOL pointer_set_null(rdpContext* context)
{
	lt_post_event(((LtContext*)context)->id, LT_EVENT_POINTER_HIDE, 0, 0, 0, 0);
	return TRUE;
}

static BOOL pointer_set_default(rdpContext* context)
{
	lt_post_event(((LtContext*)context)->id, LT_EVENT_POINTER_DEFAULT, 0, 0, 0, 0);
	return TRUE;
}

static BOOL pointer_set_position(rdpContext* context, UINT32 x, UINT32 y)
{
	lt_post_event(((LtContext*)context)->id, LT_EVENT_POINTER_POSITION, (int)x, (int)y, 0, 0);
	return TRUE;
}

BOOL lt_pointer_output_install(LtContext* lt)
{
	rdpPointer prototype = { 0 };
	prototype.size = sizeof(LtPointer);
	prototype.New = pointer_new;
	prototype.Free = pointer_free;
	prototype.Set = pointer_set;
	prototype.SetNull = pointer_set_null;
	prototype.SetDefault = pointer_set_default;
	prototype.SetPosition = pointer_set_position;
	graphics_register_pointer(lt->common.context.graphics, &prototype);
	return TRUE;
}
