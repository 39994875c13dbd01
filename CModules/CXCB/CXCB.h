// libxcb (X11) for Swift: the few calls OTView's window needs. XCB's replies, events and
// iterators are C structs read by casting and freed with free(); these wrappers do that
// in C so the Swift side sees plain values.
#ifndef CXCB_H
#define CXCB_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

// The screen numbered `number` of the connection's setup, or NULL.
static inline xcb_screen_t *cxcb_screen(xcb_connection_t *c, int number) {
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
    for (int i = 0; it.rem > 0; xcb_screen_next(&it), i++) {
        if (i == number) return it.data;
    }
    return 0;
}

// Bits per pixel of ZPixmap images at `depth` (0 when the server lists none).
static inline int cxcb_bits_per_pixel(xcb_connection_t *c, uint8_t depth) {
    xcb_format_iterator_t it = xcb_setup_pixmap_formats_iterator(xcb_get_setup(c));
    for (; it.rem > 0; xcb_format_next(&it)) {
        if (it.data->depth == depth) return it.data->bits_per_pixel;
    }
    return 0;
}

// The server's image byte order is LSBFirst (what libyuv's ARGB, B G R A in memory, matches).
static inline int cxcb_lsb_first(xcb_connection_t *c) {
    return xcb_get_setup(c)->image_byte_order == XCB_IMAGE_ORDER_LSB_FIRST;
}

// The atom named `name` (created if missing); XCB_ATOM_NONE on failure. One round trip.
static inline xcb_atom_t cxcb_atom(xcb_connection_t *c, const char *name) {
    xcb_intern_atom_reply_t *reply =
        xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, (uint16_t)strlen(name), name), 0);
    if (!reply) return XCB_ATOM_NONE;
    xcb_atom_t atom = reply->atom;
    free(reply);
    return atom;
}

// A top-level window of w x h at (x, y) on `screen` with a black background, titled,
// asking for expose and size events and for WM_DELETE_WINDOW, mapped. Also makes `gc`.
static inline xcb_window_t cxcb_open_window(xcb_connection_t *c, xcb_screen_t *screen, int16_t x, int16_t y,
                                            uint16_t w, uint16_t h, const char *title,
                                            xcb_atom_t protocols, xcb_atom_t delete_window, xcb_gcontext_t *gc) {
    xcb_window_t window = xcb_generate_id(c);
    uint32_t values[2] = { screen->black_pixel, XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_STRUCTURE_NOTIFY };
    xcb_create_window(c, XCB_COPY_FROM_PARENT, window, screen->root, x, y, w, h, 0,
                      XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
                      XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
    xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                        (uint32_t)strlen(title), title);
    if (protocols != XCB_ATOM_NONE && delete_window != XCB_ATOM_NONE) {
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, protocols, XCB_ATOM_ATOM, 32, 1, &delete_window);
    }
    *gc = xcb_generate_id(c);
    xcb_create_gc(c, *gc, window, 0, 0);
    xcb_map_window(c, window);
    xcb_flush(c);
    return window;
}

// Moves and resizes `window`.
static inline void cxcb_configure(xcb_connection_t *c, xcb_window_t window, int32_t x, int32_t y, uint32_t w, uint32_t h) {
    uint32_t values[4] = { (uint32_t)x, (uint32_t)y, w, h };
    xcb_configure_window(c, window, XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y | XCB_CONFIG_WINDOW_WIDTH |
                         XCB_CONFIG_WINDOW_HEIGHT, values);
    xcb_flush(c);
}

// Drains pending events without waiting. Returns bits: 1 exposed, 2 resized (new size in
// *w, *h), 4 closed by the window manager (WM_DELETE_WINDOW).
static inline int cxcb_poll(xcb_connection_t *c, xcb_window_t window, xcb_atom_t delete_window,
                            uint16_t *w, uint16_t *h) {
    int seen = 0;
    xcb_generic_event_t *event;
    while ((event = xcb_poll_for_event(c))) {
        switch (event->response_type & ~0x80) {
        case XCB_EXPOSE:
            seen |= 1;
            break;
        case XCB_CONFIGURE_NOTIFY: {
            xcb_configure_notify_event_t *configure = (xcb_configure_notify_event_t *)event;
            if (configure->window == window && (configure->width != *w || configure->height != *h)) {
                *w = configure->width;
                *h = configure->height;
                seen |= 2;
            }
            break;
        }
        case XCB_CLIENT_MESSAGE: {
            xcb_client_message_event_t *message = (xcb_client_message_event_t *)event;
            if (message->window == window && message->format == 32 && message->data.data32[0] == delete_window) seen |= 4;
            break;
        }
        default:
            break;
        }
        free(event);
    }
    return seen;
}

// Draws a packed 32-bit-per-pixel picture (w x h, rows w * 4 bytes) at (x, y) of the
// window, in bands of rows that each fit one request (the server's maximum request
// length). Checked: returns 0, or the X error code of the first band refused.
static inline int cxcb_put_image32(xcb_connection_t *c, xcb_window_t window, xcb_gcontext_t gc, uint8_t depth,
                                   int16_t x, int16_t y, uint16_t w, uint16_t h, const uint8_t *pixels) {
    if (w == 0 || h == 0) return 0;
    uint32_t max_bytes = xcb_get_maximum_request_length(c) * 4;
    uint32_t row_bytes = (uint32_t)w * 4;
    uint32_t rows = max_bytes > 64 + row_bytes ? (max_bytes - 64) / row_bytes : 1;
    for (uint32_t top = 0; top < h; top += rows) {
        uint32_t band = h - top < rows ? h - top : rows;
        xcb_void_cookie_t cookie = xcb_put_image_checked(c, XCB_IMAGE_FORMAT_Z_PIXMAP, window, gc, w, (uint16_t)band,
                                                         x, (int16_t)(y + top), 0, depth, band * row_bytes,
                                                         pixels + (size_t)top * row_bytes);
        xcb_generic_error_t *error = xcb_request_check(c, cookie);
        if (error) {
            int code = error->error_code;
            free(error);
            return code;
        }
    }
    return 0;
}

// Reads a w x h area at (x, y) of `drawable` as 32-bit pixels into `out` (rows of w * 4
// bytes). Returns 0, or -1 when the server refused or the depth is not 32 bits per pixel.
static inline int cxcb_get_image32(xcb_connection_t *c, xcb_drawable_t drawable, int16_t x, int16_t y,
                                   uint16_t w, uint16_t h, uint8_t *out) {
    xcb_get_image_reply_t *reply = xcb_get_image_reply(
        c, xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, drawable, x, y, w, h, ~0u), 0);
    if (!reply) return -1;
    int length = xcb_get_image_data_length(reply);
    if (length != (int)w * (int)h * 4) { free(reply); return -1; }
    memcpy(out, xcb_get_image_data(reply), (size_t)length);
    free(reply);
    return 0;
}
// Sends `window` the WM_DELETE_WINDOW message a window manager sends when the user
// closes it (with an empty event mask the server delivers it to the window's creator).
static inline void cxcb_request_close(xcb_connection_t *c, xcb_window_t window) {
    xcb_client_message_event_t event;
    memset(&event, 0, sizeof event);
    event.response_type = XCB_CLIENT_MESSAGE;
    event.format = 32;
    event.window = window;
    event.type = cxcb_atom(c, "WM_PROTOCOLS");
    event.data.data32[0] = cxcb_atom(c, "WM_DELETE_WINDOW");
    event.data.data32[1] = XCB_CURRENT_TIME;
    // Checked, so the request has been processed before the caller disconnects: under
    // load Xvfb dropped an unchecked SendEvent written just before the client's close.
    xcb_generic_error_t *error = xcb_request_check(c, xcb_send_event_checked(c, 0, window, XCB_EVENT_MASK_NO_EVENT,
                                                                             (const char *)&event));
    free(error);
}
#endif
