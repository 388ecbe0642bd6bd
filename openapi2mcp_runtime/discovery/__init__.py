"""What a client sees of the tools: the tools a request may use (`views`), how their schemas are
listed (`listing`), the dynamic mode's meta-tools (`meta_tools`) and the search behind
search_tools (`search`, `search_text`, `search_words`)."""
