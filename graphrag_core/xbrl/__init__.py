"""XBRL: inline-XBRL facts (xbrl_facts) and canonical metrics with fiscal labels
(metric_observations). No model is in the loop."""
