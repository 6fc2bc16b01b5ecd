"""The model proxy's layered history (docs/PROXY.md, "Layered history"): each captured turn
keeps the digest of the conversation after it and how many stored turns it became, so a later
request's earlier messages can be matched to stored turns exactly; the installation setting
`proxy_history` (layered | native)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0012_search_redacted_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="proxyexchange",
            name="digest_after",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name="proxyexchange",
            name="turns_stored",
            field=models.SmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="memorysettings",
            name="proxy_history",
            field=models.CharField(default="layered", max_length=16),
        ),
    ]
