/* libxml2 tree helpers for QuakeML and StationXML; see in_xml.h. */
#include "in_xml.h"

#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <string.h>

#include "in_internal.h"

/* libxml2 writes some errors (failed encoding conversions of a declared encoding) straight to
 * stderr through its generic handler, whatever the parser options say; axibulk reports the
 * parser's last error itself, in one line. */
static void silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

axb_status axb_xml_read(const char *path, xmlDocPtr *doc, axb_error *err)
{
    *doc = NULL;
    /* libxml2 would print its own warning for a missing file; check first. */
    FILE *fp = fopen(path, "r");
    AXB_CHECK(err, fp, AXB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    fclose(fp);
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    AXB_CHECK(err, ctxt, AXB_ERR_NOMEM, "%s: out of memory for the XML parser", path);
    /* NONET: never fetch external DTDs or entities; no NOENT, so entities are not expanded.
     * BIG_LINES: correct line numbers past 65535 in messages. */
    const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
    /* the handler is libxml2's per-thread state: set for this call only, then put back */
    xmlGenericErrorFunc old = xmlGenericError;
    void *old_ctx = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, silent);
    *doc = xmlCtxtReadFile(ctxt, path, NULL, options);
    xmlSetGenericErrorFunc(old_ctx, old);
    axb_status st = AXB_OK;
    if (!*doc) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        char msg[256] = "not well-formed XML";
        int line = 0;
        if (e && e->message) {
            snprintf(msg, sizeof msg, "%s", e->message);
            size_t n = strlen(msg);
            while (n > 0 && isspace((unsigned char)msg[n - 1])) msg[--n] = '\0';
            line = e->line;
        }
        st = axb_error_set(err, AXB_ERR_FORMAT, "%s:%d: not well-formed XML: %s", path, line, msg);
    }
    xmlFreeParserCtxt(ctxt);
    return st;
}

bool axb_xml_is(const xmlNode *node, const char *name)
{
    return node && node->type == XML_ELEMENT_NODE && !strcmp((const char *)node->name, name);
}

xmlNodePtr axb_xml_child(const xmlNode *parent, const char *name)
{
    for (xmlNodePtr c = parent ? parent->children : NULL; c; c = c->next)
        if (axb_xml_is(c, name)) return c;
    return NULL;
}

xmlNodePtr axb_xml_next(const xmlNode *node, const char *name)
{
    for (xmlNodePtr c = node->next; c; c = c->next)
        if (axb_xml_is(c, name)) return c;
    return NULL;
}

xmlNodePtr axb_xml_value_node(const xmlNode *parent, const char *name)
{
    return axb_xml_child(axb_xml_child(parent, name), "value");
}

static void trim_copy(const char *s, char *buf, size_t size, bool *fits)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
    *fits = n < size;
    if (!*fits) n = size - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

axb_status axb_xml_text(const char *path, const xmlNode *node, char *buf, size_t size, axb_error *err)
{
    xmlChar *content = xmlNodeGetContent(node);
    AXB_CHECK(err, content, AXB_ERR_NOMEM, "%s: out of memory reading <%s>", path, (const char *)node->name);
    bool fits;
    trim_copy((const char *)content, buf, size, &fits);
    xmlFree(content);
    AXB_CHECK(err, fits, AXB_ERR_FORMAT, "%s:%ld: <%s>: text longer than %zu characters", path, xmlGetLineNo(node),
              (const char *)node->name, size - 1);
    return AXB_OK;
}

axb_status axb_xml_double(const char *path, const xmlNode *node, double *v, axb_error *err)
{
    char buf[128];
    xmlChar *content = xmlNodeGetContent(node);
    AXB_CHECK(err, content, AXB_ERR_NOMEM, "%s: out of memory reading <%s>", path, (const char *)node->name);
    bool fits;
    trim_copy((const char *)content, buf, sizeof buf, &fits);
    xmlFree(content);
    /* A <value> is named after its parent (<latitude>), which is what a reader looks for. */
    const xmlNode *named = axb_xml_is(node, "value") && node->parent ? node->parent : node;
    AXB_CHECK(err, fits && axb_in_parse_double(buf, v), AXB_ERR_FORMAT, "%s:%ld: <%s>: '%.80s' is not a number", path,
              xmlGetLineNo(node), (const char *)named->name, buf);
    return AXB_OK;
}

bool axb_xml_attr(const xmlNode *node, const char *name, char *buf, size_t size)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    if (!v) return false;
    bool fits;
    trim_copy((const char *)v, buf, size, &fits);
    xmlFree(v);
    return true;
}
