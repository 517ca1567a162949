/* Small helpers for the XML input formats (QuakeML, StationXML) on top of libxml2's tree API.
 * Elements are matched by local name (namespaces vary between QuakeML/StationXML versions and
 * writers); only direct children are searched, so the document structure is followed exactly. */
#ifndef AXB_IO_IN_XML_H
#define AXB_IO_IN_XML_H

#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>

#include "axibulk/status.h"

/* Parses @p path into a tree (no network access, no entity expansion, nothing printed, no global
 * libxml2 settings changed). A missing file is AXB_ERR_IO, a malformed one AXB_ERR_FORMAT with
 * libxml2's reason and line. Free with xmlFreeDoc. */
axb_status axb_xml_read(const char *path, xmlDocPtr *doc, axb_error *err);

bool axb_xml_is(const xmlNode *node, const char *name);
/* First element child of @p parent called @p name, or NULL. */
xmlNodePtr axb_xml_child(const xmlNode *parent, const char *name);
/* Next element sibling after @p node called @p name, or NULL. */
xmlNodePtr axb_xml_next(const xmlNode *node, const char *name);
/* child/value: QuakeML's <latitude><value>..</value></latitude> pattern, or NULL. */
xmlNodePtr axb_xml_value_node(const xmlNode *parent, const char *name);

/* The element's text with surrounding white space removed, into @p buf. AXB_ERR_FORMAT naming file,
 * line and element when it does not fit. */
axb_status axb_xml_text(const char *path, const xmlNode *node, char *buf, size_t size, axb_error *err);
/* The element's text as a finite number: "PATH:LINE: <NAME>: 'TEXT' is not a number". */
axb_status axb_xml_double(const char *path, const xmlNode *node, double *v, axb_error *err);
/* An attribute's value (trimmed) into @p buf; false when the attribute is absent. */
bool axb_xml_attr(const xmlNode *node, const char *name, char *buf, size_t size);

#endif
