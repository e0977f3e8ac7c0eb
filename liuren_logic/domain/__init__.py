"""大六壬 on the Datalog layer: chart inputs (calendar, pillars, the querent, the matter), schools
and their readings, the session that casts charts, and the disputes and audits over readings.
"""
