"""What keeps the browser safe: the door in front of the page and the API (`guard`: Host,
Origin, Sec-Fetch-Site), and untrusted Markdown made inert before the page draws it
(`safe_markdown`, over `markdown_reading`: where a text's images, links and HTML stand)."""
